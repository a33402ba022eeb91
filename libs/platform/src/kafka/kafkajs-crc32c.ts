import { Module } from 'node:module';

/**
 * kafkajs 2.2.4 checksums every record batch it produces (CRC-32C) in
 * JavaScript, a byte at a time: 0.18 ms of CPU for a 40 KB batch, such as a
 * usage batch's command or its stored message, paid again at every hop that
 * produces. `@node-rs/crc32`'s `crc32c` (SIMD, the same polynomial and
 * result) takes 0.009 ms for it, and a quarter of kafkajs' time for a
 * 300-byte reply (docs/benchmarks.md, session 18).
 *
 * kafkajs requires its checksum module lazily, when it first encodes a
 * record batch, and keeps the function it got; so the native function takes
 * the module's place in the require cache before that. Where the native
 * package cannot load (a platform without a prebuilt binary), or a record
 * batch was encoded already, kafkajs keeps its own.
 */
const CHECKSUM_MODULE = 'kafkajs/src/protocol/recordBatch/crc32C';
const RECORD_BATCH_MODULE = 'kafkajs/src/protocol/recordBatch/v0';

let installed: boolean | undefined;

/** Installs the native CRC-32C for kafkajs' record batches (once per process); true when kafkajs encodes with it. */
export function useNativeCrc32c(): boolean {
  if (installed !== undefined) return installed;
  installed = false;
  const path = require.resolve(CHECKSUM_MODULE);
  if (require.cache[require.resolve(RECORD_BATCH_MODULE)] || require.cache[path]) return installed;
  let crc32c: (input: Buffer) => number;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional at run time: a missing binary leaves kafkajs' own
    crc32c = (require('@node-rs/crc32') as { crc32c: (input: Buffer) => number }).crc32c;
  } catch {
    return installed;
  }
  const checksum = new Module(path);
  checksum.filename = path;
  checksum.loaded = true;
  // kafkajs' module answers the checksum of a Buffer as an unsigned 32-bit number, as crc32c does.
  checksum.exports = (buffer: Buffer): number => crc32c(buffer);
  require.cache[path] = checksum;
  installed = true;
  return installed;
}
