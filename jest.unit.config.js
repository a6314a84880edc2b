/** The unit tier alone (`npm run test:unit`): no globalSetup, so nothing is started; seconds, not minutes. */
const unit = require('./jest.config').projects.find((project) => project.displayName === 'unit');

module.exports = { ...unit, rootDir: __dirname, testTimeout: 30000 };
