export * from './client';
export * from './errors';
export * from './paginate';
export * from './usage-records';
export { DEFAULT_RETRY, type FetchLike, type RetryOptions } from './transport';
export type { components, operations, paths } from './generated/openapi';
export { REQUEST_SCHEMAS, type OperationId } from './generated/request-schemas';
