// Where loopwire's verdict on a conformance case differs from llhttp's strict verdict, and why. Shared by the
// parser-level replay (tests/unit/http/HttpConformanceTest.cpp) and the socket-level one
// (tests/integration/ConformanceReplayTest.cpp); the reasons are also in docs/decisions/http-parser.md.
#pragma once

#include "http/HttpError.h"

namespace loopwire::test {

struct Deviation {
    int id;
    const char* expect;  // loopwire's verdict
    int messages;        // complete requests loopwire reads before that verdict
    HttpError error;     // loopwire's refusal, for "reject"
    const char* reason;
};

using E = HttpError;

// Where loopwire differs from llhttp's expectation, and why. Most rows are llhttp's lenient-mode cases: the file
// records what llhttp does with a leniency flag set, and loopwire has no leniency flags.
constexpr Deviation kDeviations[] = {
    {4, "close-after", 1, E::None, "lenient keep-alive: an HTTP/1.0 request without keep-alive ends the connection"},
    {11, "close-after", 1, E::None, "lenient keep-alive: Connection: close ends the connection"},
    {13, "reject", 0, E::ObsoleteLineFolding, "obs-fold is refused (RFC 9112 5.2 allows it), never unfolded"},
    {15, "reject", 0, E::ObsoleteLineFolding, "obs-fold is refused (RFC 9112 5.2 allows it), never unfolded"},
    {17, "reject", 0, E::BadHeaderName, "lenient: whitespace before the colon is refused (RFC 9112 5.1 MUST)"},
    {28, "reject", 0, E::BadHeaderName, "lenient: whitespace before the colon is refused (RFC 9112 5.1 MUST)"},
    {29, "reject", 0, E::ContentLengthWithChunked, "lenient: Transfer-Encoding with Content-Length is refused"},
    {37, "wait", 0, E::None, "llhttp's skipBody (a HEAD response) has no request equivalent: the body is awaited"},
    {39, "reject", 0, E::BareLineEnding, "lenient: a CR not followed by LF is refused"},
    {46, "accept", 1, E::None, "any token is a method (RFC 9110 9.1); the router, not the parser, knows which exist"},
    {50, "reject", 0, E::BareLineEnding, "lenient: a CR not followed by LF is refused"},
    {56, "accept", 1, E::None, "any token is a method (RFC 9110 9.1); the router, not the parser, knows which exist"},
    {64, "reject", 0, E::BareLineEnding, "lenient: bare LF line endings are refused"},
    {66, "reject", 0, E::ObsoleteLineFolding, "lenient: a field line starting with SP is refused"},
    {67, "reject", 0, E::BadHeaderValue, "lenient: control bytes in a field value are refused"},
    {72, "reject", 0, E::BadHeaderValue, "lenient: control bytes in a field value are refused"},
    {73, "reject", 1, E::BadHeaderValue, "lenient: control bytes in a field value are refused (second request)"},
    {75, "reject", 0, E::BareLineEnding, "lenient: a CR not followed by LF is refused"},
    {76, "reject", 0, E::UnsupportedVersion, "lenient: only HTTP/1.0 and HTTP/1.1 are served (505 otherwise)"},
    {88, "reject", 0, E::BadRequestLine, "ICE/1.0 is not HTTP; loopwire serves HTTP only"},
    {89, "reject", 0, E::BadRequestLine, "RTSP/1.0 is not HTTP; loopwire serves HTTP only"},
    {90, "reject", 0, E::BadRequestLine, "RTSP/1.0 is not HTTP; loopwire serves HTTP only"},
    {91, "reject", 1, E::BadRequestLine,
     "no HTTP/2: PRI is an ordinary method, and the SM line after it is not a request line"},
    {116, "reject", 0, E::BadRequestLine, "a request line without a version (HTTP/0.9) is refused"},
    {117, "reject", 0, E::ObsoleteLineFolding, "obs-fold is refused (RFC 9112 5.2 allows it), never unfolded"},
    {120, "reject", 0, E::BareLineEnding, "lenient: a CR not followed by LF is refused"},
    {124, "reject", 0, E::ObsoleteLineFolding, "obs-fold is refused (RFC 9112 5.2 allows it), never unfolded"},
    {138, "reject", 0, E::ContentLengthWithChunked, "lenient: Transfer-Encoding with Content-Length is refused"},
    {142, "reject", 0, E::BadTransferEncoding, "lenient: a coding after chunked is refused (RFC 9112 6.3)"},
    {143, "reject", 0, E::BadTransferEncoding, "lenient: a coding after chunked is refused (RFC 9112 6.3)"},
    {151, "reject", 0, E::BareLineEnding, "lenient: a chunk size line ended by a lone CR is refused"},
    {153, "reject", 0, E::BadChunkTerminator, "lenient: chunk data must be followed by CRLF"},
    {155, "reject", 0, E::BadChunkSize, "lenient: whitespace after a chunk size without an extension is refused"},
};

inline const Deviation* deviationFor(int id) {
    for (const Deviation& d : kDeviations) {
        if (d.id == id) return &d;
    }
    return nullptr;
}

}  // namespace loopwire::test
