'use strict';
// Test helper: one request on a session of Node's http2 client.

/**
 * Sends a request with headers (pseudo-headers included) and body (nothing when undefined) on session, and
 * resolves with { headers, body }: the response's headers and its body as a Buffer, as it came (still coded).
 */
function http2Request(session, headers, body) {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers);
    const chunks = [];
    let responseHeaders;
    stream.on('response', (received) => { responseHeaders = received; });
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => resolve({ headers: responseHeaders, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    stream.end(body);
  });
}

module.exports = { http2Request };
