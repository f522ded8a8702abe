// Types of require('loopwire') / import 'loopwire' (api.d.ts holds them). The module is also its own default
// export, so that `import uWS from 'loopwire'` type-checks without esModuleInterop, and runs: the CommonJS module
// carries itself as `default` (api.js), and index.mjs exports it as default.
export * from './api';
import * as loopwire from './api';
export default loopwire;
