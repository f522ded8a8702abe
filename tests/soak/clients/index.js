'use strict';
// The client kinds of a soak session and how many of each run side by side. The machine this runs on may have
// two cores: a handful of connections per kind keeps the load modest, and the verifying clients still run flat
// out.

const CLIENT_KINDS = [
  { client: require('./keepAliveHello.js'), workers: 3 },
  { client: require('./pipelinedHello.js'), workers: 2 },
  { client: require('./echoPost.js'), workers: 2 },
  { client: require('./streamVerify.js'), workers: 1 },
  { client: require('./deferredPipeline.js'), workers: 2 },
  { client: require('./slowloris.js'), workers: 3 },
  { client: require('./slowReader.js'), workers: 2 },
  { client: require('./vanishingReader.js'), workers: 2 },
  { client: require('./resetMidRequest.js'), workers: 1 },
  { client: require('./resetMidResponse.js'), workers: 1 },
  { client: require('./abortedBody.js'), workers: 1 },
  { client: require('./oversizedHead.js'), workers: 1 },
  { client: require('./garbage.js'), workers: 1 },
  { client: require('./idleWave.js'), workers: 1 },
  { client: require('./pipelineNoRead.js'), workers: 1 },
];

module.exports = { CLIENT_KINDS };
