// The demo `npm start` runs: a small tour of the API on one port (default 3000).
//   /                 hello world
//   /users/:id        route parameters
//   /echo (POST)      the request body, collected with collectBody
//   /stream           a chunked response written over time
//   /declarative/:name  a DeclarativeResponse, answered without calling JavaScript
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);

uWS.App()
  .get('/', (res) => {
    res.writeHeader('content-type', 'text/plain')
      .end('Hello from loopwire. Try /users/42, POST /echo, /stream, /declarative/you\n');
  })
  .get('/users/:id', (res, req) => {
    res.writeHeader('content-type', 'application/json').end(JSON.stringify({ id: req.getParameter('id') }));
  })
  .post('/echo', (res) => {
    res.onAborted(() => {});
    res.collectBody(1024 * 1024, (body) => {
      if (body === null) res.writeStatus('413 Payload Too Large').end();
      else res.end(body);
    });
  })
  .get('/stream', (res) => {
    let aborted = false;
    res.onAborted(() => { aborted = true; });
    let count = 0;
    const timer = setInterval(() => {
      if (aborted) return clearInterval(timer);
      res.cork(() => {
        if (++count < 5) {
          res.write(`tick ${count}\n`);
        } else {
          clearInterval(timer);
          res.end('done\n');
        }
      });
    }, 100);
  })
  .get('/declarative/:name', new uWS.DeclarativeResponse()
    .writeHeader('content-type', 'text/plain')
    .write('Hello, ')
    .writeParameterValue('name')
    .end('!\n'))
  .listen(port, (listenSocket) => {
    if (listenSocket) console.log(`loopwire demo listening on http://localhost:${uWS.us_socket_local_port(listenSocket)}`);
    else {
      console.error(`could not listen on port ${port}`);
      process.exitCode = 1;
    }
  });
