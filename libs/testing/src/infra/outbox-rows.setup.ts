import { takeOutboxViolations } from '@worktrack/platform';

/**
 * Runs after every integration spec file (jest `setupFilesAfterEnv`): the
 * file fails when an outbox relay of its process read a row that does not
 * match its contract (global setup sets OUTBOX_VERIFY_ROWS), whichever
 * service wrote it and however (`enqueue`, a statement of its own, a
 * PL/pgSQL function).
 */
afterAll(() => {
  expect(takeOutboxViolations()).toEqual([]);
});
