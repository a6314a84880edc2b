/** The unit tier alone (`npm run test:unit`): no globalSetup, so nothing is started; seconds, not minutes. */
const unit = require('./jest.config').projects.find((project) => project.displayName === 'unit');

// Every core: jest's default keeps one back for itself, which on a 2-core machine runs the files one at a time,
// though its own process mostly waits.
module.exports = { ...unit, rootDir: __dirname, testTimeout: 30000, maxWorkers: '100%' };
