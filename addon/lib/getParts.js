'use strict';
// getParts(body, contentType): the parts of a multipart body (multipart/form-data and the other multipart/*
// types), as uWebSockets.js v20 returns them: [{ name, data, filename?, type? }], with `data` a copy of the
// part's bytes in an ArrayBuffer; undefined when contentType is not multipart with a boundary. Parsing stops at
// the closing delimiter, or at the first malformed part (the parts before it are returned).

const { toBytes } = require('./bytes.js');

const kMaxBoundaryLength = 70;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

/** The boundary parameter of a multipart content type, or undefined. */
function boundaryOf(contentType) {
  if (!/^multipart\//i.test(contentType)) return undefined;
  const match = /;\s*boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(contentType);
  if (!match) return undefined;
  const boundary = match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
  return boundary.length >= 1 && boundary.length <= kMaxBoundaryLength ? boundary : undefined;
}

/** The parameters (name=value; filename="x") of a Content-Disposition value. */
function dispositionParameters(value) {
  const parameters = {};
  const pattern = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  let match;
  while ((match = pattern.exec(value)) !== null) {
    const key = match[1].toLowerCase();
    parameters[key] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3].trim();
  }
  return parameters;
}

function toArrayBuffer(bytes) {
  const copy = new ArrayBuffer(bytes.length);
  new Uint8Array(copy).set(bytes);
  return copy;
}

/** Turns one part (headers, blank line, data) into a field; undefined when it has no blank line. */
function parsePart(part) {
  let headerBlock;
  let data;
  if (part.subarray(0, 2).equals(CRLF)) {
    headerBlock = '';
    data = part.subarray(2);
  } else {
    const end = part.indexOf(HEADERS_END);
    if (end < 0) return undefined;
    headerBlock = part.subarray(0, end).toString('utf8');
    data = part.subarray(end + HEADERS_END.length);
  }
  const field = { data: toArrayBuffer(data) };
  for (const line of headerBlock.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-type') {
      field.type = value;
    } else if (name === 'content-disposition') {
      const parameters = dispositionParameters(value);
      if (parameters.name !== undefined) field.name = parameters.name;
      if (parameters.filename !== undefined) field.filename = parameters.filename;
    }
  }
  return field;
}

/** Takes (body: RecognizedString, contentType: RecognizedString); returns the parts, or undefined. */
function getParts(body, contentType) {
  const bytes = toBytes(body, 'getParts: body');
  const boundary = boundaryOf(toBytes(contentType, 'getParts: contentType').toString('latin1'));
  if (boundary === undefined) return undefined;
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const nextDelimiter = Buffer.concat([CRLF, delimiter]);
  const parts = [];
  let at = bytes.indexOf(delimiter);
  if (at < 0) return parts;
  at += delimiter.length;
  for (;;) {
    // After a delimiter: "--" closes the body; otherwise the rest of the line (transport padding), then a part.
    if (bytes[at] === 0x2d && bytes[at + 1] === 0x2d) break;
    const lineEnd = bytes.indexOf(CRLF, at);
    if (lineEnd < 0) break;
    const start = lineEnd + CRLF.length;
    const end = bytes.indexOf(nextDelimiter, start);
    if (end < 0) break;
    const field = parsePart(bytes.subarray(start, end));
    if (field === undefined) break;
    parts.push(field);
    at = end + nextDelimiter.length;
  }
  return parts;
}

module.exports = { getParts };
