'use strict';
// require('loopwire'): the uWebSockets.js v20 API on Node's own event loop. See docs/node/guide.md.

const { loadNative } = require('./binding.js');
const { createApi } = require('./api.js');

module.exports = createApi(loadNative('loopwire'));
