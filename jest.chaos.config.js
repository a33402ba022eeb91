// The short chaos run as a jest suite (`npm run test:chaos`, after `npm run build`): see e2e/chaos.e2e-spec.ts.
const e2e = require('./jest.e2e.config');

module.exports = { ...e2e, displayName: 'chaos', testMatch: ['**/chaos.e2e-spec.ts'], testPathIgnorePatterns: ['/node_modules/'] };
