/**
 * What a new user of the API writes with a client generated from the served
 * document (`openapi-typescript openapi.yaml -o openapi.d.ts`, then
 * openapi-fetch). Type-checked under `--strict` against freshly generated
 * types by `openapi-client.int-spec.ts`; `./openapi` exists only there (this
 * folder is outside the repo's tsconfig). Never run: it only has to compile,
 * and each `@ts-expect-error` has to stay an error.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './openapi';

type Schemas = components['schemas'];

export async function report(baseUrl: string, token: string): Promise<void> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  // A batch of events, each with an opaque payload object; source_type and occurred_at may be left out.
  const batch: Schemas['ActivityBatchDto'] = {
    events: [
      {
        event_type: 'deploy',
        source_type: 'ci',
        occurred_at: new Date().toISOString(),
        external_id: 'deploy-api-1.42.0',
        payload: { service: 'api', version: '1.42.0', durations: { build_ms: 81234 }, tags: ['prod'] },
      },
      { event_type: 'test_run' },
    ],
  };
  const ingested = await api.POST('/activity/events', { body: batch });
  if (ingested.data) {
    const accepted: number = ingested.data.data.accepted;
    const ids: string[] = ingested.data.data.event_ids;
    console.log(accepted + ingested.data.data.deduplicated, ids.join(','));
  } else if (ingested.error) {
    // Errors are typed by their codes.
    const code: Schemas['ErrorCode'] = ingested.error.error.code;
    console.log(
      code,
      ingested.error.error.details?.map((d) => `${d.path}: ${d.issue}`),
    );
  }
  // One event alone is a body too.
  await api.POST('/activity/events', { body: { event_type: 'cron_job', payload: { job: 'nightly-backup' } } });

  // The timeline: payloads come back as records of unknown values.
  const timeline = await api.GET('/activity/events', { params: { query: { limit: 50 } } });
  for (const event of timeline.data?.data ?? []) {
    const payload: Record<string, unknown> = event.payload;
    const session: string | null = event.session_id;
    console.log(payload.service, session, timeline.data?.meta.cursor);
  }

  // Sessions: path parameters are typed.
  const started = await api.POST('/sessions', { body: { intent_text: 'Fix the flaky login test', source: 'timer' } });
  const sessionId = started.data?.data.session_id;
  if (sessionId) {
    await api.POST('/sessions/{session_id}/pause', { params: { path: { session_id: sessionId } }, body: { pause_reason: 'Lunch' } });
    await api.POST('/sessions/{session_id}/close', { params: { path: { session_id: sessionId } }, body: {} });
  }

  // The plate: integer counts.
  const plate = await api.GET('/plate', { params: { query: { date: '2026-03-02' } } });
  if (plate.data) {
    const free: number = plate.data.data.capacity - plate.data.data.active_count;
    console.log(free);
  }
  const assigned = await api.POST('/plate/assign', {
    body: { assignee_id: '9b2c6f0e-1d2a-4c3b-8e4f-5a6b7c8d9e0f', title: 'Review the release notes' },
  });
  const overflowed: boolean | undefined = assigned.data?.data.overflowed;
  console.log(overflowed);

  const me = await api.GET('/me');
  const capacity: number | undefined = me.data?.data.plate_capacity;
  const monday: Array<{ start: string; end: string }> | undefined = me.data?.data.working_hours.mon;
  console.log(capacity, monday);

  // What the document forbids does not compile.
  // @ts-expect-error a payload is an object, not a string
  await api.POST('/activity/events', { body: { event_type: 'deploy', payload: 'not an object' } });
  // @ts-expect-error unknown fields are refused
  await api.POST('/sessions', { body: { intent_text: 'x', source: 'timer', colour: 'blue' } });
  // @ts-expect-error source is timer or manual
  await api.POST('/sessions', { body: { intent_text: 'x', source: 'stopwatch' } });
  // @ts-expect-error the counts are numbers
  const wrong: string = plate.data?.data.capacity ?? '';
  console.log(wrong);
}
