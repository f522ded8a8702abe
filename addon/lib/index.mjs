// import { App } from 'loopwire': the ES module face of the same API (the native module is loaded once).
import loopwire from './index.js';

export const {
  App,
  SSLApp,
  us_listen_socket_close,
  us_socket_local_port,
  LIBUS_LISTEN_EXCLUSIVE_PORT,
  getParts,
  DeclarativeResponse,
} = loopwire;

export default loopwire;
