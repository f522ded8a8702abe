// Every core serving one port with worker_threads, one App per worker. By default the main thread accepts the
// connections and deals them to the workers in turn (getDescriptor / addChildAppDescriptor); with
// MODE=reuseport every worker listens on the port itself and the kernel spreads the connections (SO_REUSEPORT).
//   node examples/js/multi_core.js        (PORT=0 picks a free port, THREADS=n sets the number of workers)
'use strict';
const os = require('node:os');
const { Worker, isMainThread, parentPort, threadId, workerData } = require('node:worker_threads');
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);
const threads = Number(process.env.THREADS ?? os.availableParallelism());
const reusePort = process.env.MODE === 'reuseport';

function announce(listeningPort) {
  console.log(`listening on port ${listeningPort} with ${threads} workers`);
}

function fail() {
  console.error(`could not listen on port ${port}`);
  process.exit(1);
}

if (isMainThread) {
  if (reusePort) {
    // The main thread finds the port (PORT may be 0) and holds it until every worker listens on it too.
    uWS.App().listen(port, (listenSocket) => {
      if (!listenSocket) fail();
      const shared = uWS.us_socket_local_port(listenSocket);
      let listening = 0;
      for (let i = 0; i < threads; i++) {
        const worker = new Worker(__filename, { workerData: { port: shared } });
        worker.once('message', (ok) => {
          if (!ok) fail();
          if (++listening < threads) return;
          uWS.us_listen_socket_close(listenSocket);
          announce(shared);
        });
      }
    });
  } else {
    // The acceptor: it serves a connection itself only when no worker can take it.
    const acceptor = uWS.App().any('/*', (res) => res.end('Hello from the main thread!'));
    let ready = 0;
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(__filename);
      worker.once('message', (descriptor) => {
        acceptor.addChildAppDescriptor(descriptor);
        // The acceptor skips a worker that ended anyway; removing it says so.
        worker.once('exit', () => acceptor.removeChildAppDescriptor(descriptor));
        if (++ready < threads) return;
        acceptor.listen(port, (listenSocket) => {
          if (!listenSocket) fail();
          announce(uWS.us_socket_local_port(listenSocket));
        });
      });
    }
  }
  // Ending the process ends the workers with it.
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
} else {
  // A worker: its own App, on its own thread and event loop.
  const app = uWS.App().any('/*', (res) => res.end(`Hello from worker ${threadId}!`));
  if (workerData?.port !== undefined) {
    app.listen(workerData.port, (listenSocket) => parentPort.postMessage(Boolean(listenSocket)));
  } else {
    // The descriptor keeps this worker running until app.close() or terminate().
    parentPort.postMessage(app.getDescriptor());
  }
}
