// The smallest loopwire server: answers every request with "Hello world!".
//   node examples/js/hello_world.js        (PORT=0 picks a free port)
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);

uWS.App()
  .any('/*', (res) => {
    res.end('Hello world!');
  })
  .listen(port, (listenSocket) => {
    if (listenSocket) {
      console.log(`listening on port ${uWS.us_socket_local_port(listenSocket)}`);
    } else {
      console.error(`could not listen on port ${port}`);
      process.exitCode = 1;
    }
  });
