'use strict';
// The configuration files of the servers that take one instead of a command line (nginx and h2o, from Debian), for
// the static/* scenarios and the HTTP/2 ones (h2/hello-*, h2c/hello-*: a file of "Hello world!"). Each function returns a template; the A/B runner fills it for every server it starts
// (bench/ab/arms.js and server.js) and writes it into a folder of its own under the run's temporary folder:
//   {port}       the port the runner picked for this server (they cannot print "listening on <port>": the runner
//                waits for the port to accept connections)
//   {configDir}  the folder the file is written to, for the pid file and the temporary folders
//   {docroot}    the run's document root (bench/ab/docroot.js), the same for every server
//   {tlsKey}, {tlsCert}  the run's key and certificate (bench/ab/tls.js), in the TLS variant
// Both are set up the way the static/* goals name: one worker process or thread, no access log, unlimited
// requests per keep-alive connection, and for nginx sendfile and open_file_cache with open_file_cache_valid 1s
// (loopwire checks a cached file against the disk once a second too). `precompressed` turns on what each server
// has for serving a file's precompressed sibling (file.gz beside file) to a request that accepts gzip, for
// static/gzip-50kb; off, the configuration is the one the other static/* scenarios have always used.
const os = require('node:os');

// The user a server started as root runs its workers as. Both servers drop root for "nobody" by default, which
// could not read the run's temporary folder (mode 0700); when the runner is root they are told to stay who the
// runner is. Not set otherwise: h2o refuses `user` when it cannot switch to it.
const RUNNER_USER = process.getuid?.() === 0 ? os.userInfo().username : null;

// nginx: `daemon off` keeps the master in the foreground (the runner's process, whose process tree it reads the CPU
// time of; the worker is its child). tcp_nopush is Debian's default nginx.conf's, beside sendfile: the head and
// the file's first bytes leave in one segment. The media types are the one the scenarios use, so that the answer
// does not depend on /etc/nginx/mime.types. precompressed: gzip_static (its standard way of serving file.gz), with
// gzip_vary, so that its answer carries Vary: Accept-Encoding as loopwire's and h2o's do (without it a shared cache
// could give the gzip answer to a client that does not accept it).
// http2: HTTP/2 on the port (by ALPN with tls, else by prior knowledge only, as nginx has no other way on
// cleartext), for the h2/* and h2c/* scenarios.
function nginxConfig({ tls = false, user = RUNNER_USER, precompressed = false, http2 = false } = {}) {
  return [
    '# nginx for the static/* scenarios, written by the A/B runner (bench/scenarios/configs.js).',
    'daemon off;',
    'master_process on;',
    'worker_processes 1;',
    ...(user ? [`user ${user};`] : []),
    'pid {configDir}/nginx.pid;',
    'error_log stderr warn;',
    'events {',
    '    worker_connections 1024;',
    '}',
    'http {',
    '    access_log off;',
    '    types {',
    '        text/plain txt;',
    '    }',
    '    default_type application/octet-stream;',
    '    sendfile on;',
    '    tcp_nopush on;',
    '    keepalive_requests 1000000000;',
    '    open_file_cache max=1000 inactive=20s;',
    '    open_file_cache_valid 1s;',
    ...(precompressed ? ['    gzip_static on;', '    gzip_vary on;'] : []),
    '    client_body_temp_path {configDir}/client_body;',
    '    proxy_temp_path {configDir}/proxy;',
    '    fastcgi_temp_path {configDir}/fastcgi;',
    '    uwsgi_temp_path {configDir}/uwsgi;',
    '    scgi_temp_path {configDir}/scgi;',
    '    server {',
    `        listen 127.0.0.1:{port}${tls ? ' ssl' : ''}${http2 ? ' http2' : ''};`,
    '        root {docroot};',
    ...(tls ? ['        ssl_certificate {tlsCert};', '        ssl_certificate_key {tlsKey};'] : []),
    '    }',
    '}',
    '',
  ].join('\n');
}

// h2o: its default mode keeps one process in the foreground; num-threads 1 makes it one event loop. Without an
// access-log directive it keeps none; its error log is stderr by default (an error-log of /dev/stderr would fail:
// the runner's pipes are sockets, which cannot be opened by path). file.dir serves the folder (h2o keeps its open
// files in its own cache). precompressed: file.send-compressed, which serves file.gz (or file.br) beside a file to a
// request that accepts the coding. ocsp-update-interval 0: no OCSP stapling, whose fetcher (a perl process h2o
// starts now and then) would otherwise run, unasked for, inside the measurement (and under callgrind, as a process
// of its own, sometimes killed before it wrote its count). h2o speaks HTTP/2 on every port, by ALPN on TLS and by prior knowledge on cleartext.
function h2oConfig({ tls = false, user = RUNNER_USER, precompressed = false } = {}) {
  return [
    '# h2o for the static/* scenarios, written by the A/B runner (bench/scenarios/configs.js).',
    ...(user ? [`user: ${user}`] : []),
    'num-threads: 1',
    'listen:',
    '  host: 127.0.0.1',
    '  port: {port}',
    ...(tls ? ['  ssl:', '    certificate-file: {tlsCert}', '    key-file: {tlsKey}', '    ocsp-update-interval: 0']
      : []),
    'hosts:',
    '  default:',
    '    paths:',
    '      /:',
    '        file.dir: {docroot}',
    ...(precompressed ? ['        file.send-compressed: ON'] : []),
    '',
  ].join('\n');
}

module.exports = { RUNNER_USER, nginxConfig, h2oConfig };
