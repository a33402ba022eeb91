/**
 * Every list reply is bounded in bytes as well as rows: a page holds
 * at most `limit` items and at most about this many bytes of them (the first
 * item always), so a reply stays far below the reply topic's record limit
 * (about 1 MB) whatever the items hold. A page cut short by bytes still has a
 * next cursor; clients page on as usual.
 */
export const MAX_PAGE_BYTES = 512 * 1024;

/** Page size of the lists that had none before (tokens, connectors): default and maximum. */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
