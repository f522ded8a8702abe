// Streaming a large response with backpressure: tryEnd sends what the socket takes, onWritable resumes from
// getWriteOffset() when it drains. Memory stays flat whatever the size and however slow the client.
//   curl -o /dev/null localhost:3000/large
'use strict';
const uWS = require('loopwire');

const port = Number(process.env.PORT ?? 3000);
const TOTAL_BYTES = 64 * 1024 * 1024;
const block = Buffer.alloc(1024 * 1024, 'loopwire ');

// The body is produced piece by piece, as from a file or a database cursor.
function pieceAt(offset) {
  const start = offset % block.length;
  return block.subarray(start, Math.min(block.length, start + (TOTAL_BYTES - offset)));
}

uWS.App()
  .get('/large', (res) => {
    res.onAborted(() => { res.aborted = true; });
    res.writeHeader('content-type', 'application/octet-stream');
    // Returns false when the socket is full: stop until onWritable.
    const pump = () => {
      while (!res.aborted) {
        const [ok, done] = res.tryEnd(pieceAt(res.getWriteOffset()), TOTAL_BYTES);
        if (done) return true;
        if (!ok) return false;
      }
      return true;
    };
    res.onWritable(() => pump());
    pump();
  })
  .listen(port, (listenSocket) => {
    if (listenSocket) console.log(`listening on port ${uWS.us_socket_local_port(listenSocket)}`);
    else process.exitCode = 1;
  });
