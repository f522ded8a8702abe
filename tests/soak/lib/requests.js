'use strict';
// The request bytes the soak clients send.

/** A GET request head; extraHeaders is a string of complete header lines. */
function getRequest(path, extraHeaders = '') {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: soak\r\n${extraHeaders}\r\n`, 'latin1');
}

/** The head of a POST whose body follows with Content-Length. */
function postHead(path, contentLength) {
  return Buffer.from(`POST ${path} HTTP/1.1\r\nHost: soak\r\nContent-Length: ${contentLength}\r\n\r\n`, 'latin1');
}

/** The head of a POST whose body follows in chunked transfer coding. */
function chunkedPostHead(path) {
  return Buffer.from(`POST ${path} HTTP/1.1\r\nHost: soak\r\nTransfer-Encoding: chunked\r\n\r\n`, 'latin1');
}

const CRLF = Buffer.from('\r\n', 'latin1');

/** One chunk of a chunked body (an empty piece makes the last chunk). */
function chunkOf(piece) {
  const size = Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1');
  return Buffer.concat([size, piece, CRLF]);
}

const HELLO_REQUEST = getRequest('/hello');

module.exports = { getRequest, postHead, chunkedPostHead, chunkOf, HELLO_REQUEST };
