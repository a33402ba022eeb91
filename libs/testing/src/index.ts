export * from './infra/endpoints';
export * from './infra/test-run';
export * from './fixtures/config';
export * from './fixtures/kafka';
export * from './process/app-process';
export * from './fixtures/service-skeleton';
export * from './fixtures/members';
export * from './fixtures/correlation-scenarios';
