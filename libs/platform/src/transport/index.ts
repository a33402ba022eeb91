export * from './contract-pattern';
export * from './contract.context';
export * from './contract-validation.pipe';
export * from './rpc-domain-error.filter';
export * from './message.interceptors';
export * from './kafka-contract.transport';
export * from './command.client';
export * from './command-client.module';
