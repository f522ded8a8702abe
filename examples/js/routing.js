// Routing: static paths, parameters by position and by name, a wildcard, the query string, and a 404.
//   curl localhost:3000/users/42/posts/7?fields=title
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);

uWS.App()
  .get('/', (res) => {
    res.writeHeader('content-type', 'text/plain').end('try /users/42, /users/42/posts/7?fields=title, /static/any/path');
  })
  .get('/users/:id', (res, req) => {
    res.writeHeader('content-type', 'application/json').end(JSON.stringify({ user: req.getParameter(0) }));
  })
  .get('/users/:id/posts/:post', (res, req) => {
    const body = {
      user: req.getParameter('id'),
      post: req.getParameter('post'),
      fields: req.getQuery('fields') ?? null,
    };
    res.writeHeader('content-type', 'application/json').end(JSON.stringify(body));
  })
  .get('/static/*', (res, req) => {
    res.end(`a file under /static: ${req.getUrl()}`);
  })
  .any('/*', (res, req) => {
    res.writeStatus('404 Not Found').end(`no route for ${req.getMethod()} ${req.getUrl()}`);
  })
  .listen(port, (listenSocket) => {
    if (listenSocket) console.log(`listening on port ${uWS.us_socket_local_port(listenSocket)}`);
    else process.exitCode = 1;
  });
