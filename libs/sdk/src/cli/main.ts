#!/usr/bin/env node
// The `worktrack` command (the bin of @worktrack/sdk): `worktrack --help`.
import { runCli } from './cli';
import { ExitCode } from './exit-codes';
import { createApi } from './sdk-api';

runCli(
  process.argv.slice(2),
  {
    env: process.env,
    stdin: process.stdin,
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    errIsTty: process.stderr.isTTY === true,
  },
  createApi,
).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`worktrack: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = ExitCode.Internal;
  },
);
