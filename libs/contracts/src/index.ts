import 'reflect-metadata';
export * from './topics';
export * from './error-codes';
export * from './headers';
export * from './message';
export * from './validate';
export * from './rpc/reply';
export * from './system/status.query';
