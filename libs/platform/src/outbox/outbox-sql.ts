import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { Topics, type MessageContract, type PayloadClass } from '@worktrack/contracts';
import { outboxChannel, outboxTable } from './outbox-table';

/**
 * Outbox rows written by an SQL statement of their own (a CTE of the change
 * they announce, or a PL/pgSQL function), for the hot paths where one round
 * trip matters (ADR 0012 decisions 11, 13, 16, 20 and 28). The statement's
 * text is generated here from the message contract: the topic, type and
 * version come from the contract, and the payload is a `jsonb_build_object`
 * whose keys are exactly the properties of the contract's payload class —
 * every required one given, no unknown one — checked when the text is built,
 * so a contract that gains or renames a field breaks the build of the text,
 * not a consumer. What the expressions hold (ids, instants) is the caller's
 * to keep valid by construction; the relay re-validates every row in tests
 * (`takeOutboxViolations`).
 */

declare const jsonArrayOf: unique symbol;
/** A `jsonb_agg(…)` expression whose elements are objects of `E` (from `jsonArraySql`). */
export type SqlJsonArray<E> = string & { readonly [jsonArrayOf]: E };

type FieldSql<V> = V extends ReadonlyArray<infer E> ? (E extends object ? SqlJsonArray<E> : string) : string;
type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];
type RequiredKeys<T> = Exclude<keyof T, OptionalKeys<T>>;

/** One SQL expression per payload property: every required property, optionally the optional ones. */
export type PayloadSql<T> = { readonly [K in RequiredKeys<T>]-?: FieldSql<NonNullable<T[K]>> } & {
  readonly [K in OptionalKeys<T>]?: FieldSql<NonNullable<T[K]>>;
};

const declaredCache = new WeakMap<PayloadClass, Map<string, { conditional: boolean }>>();

/** The properties a payload class declares, and which of them are optional (`@IsOptional`). */
function declaredProperties(cls: PayloadClass): Map<string, { conditional: boolean }> {
  const cached = declaredCache.get(cls);
  if (cached) return cached;
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(cls, undefined as unknown as string, false, false, undefined);
  const properties = new Map<string, { conditional: boolean }>();
  for (const m of metadatas) {
    const p = properties.get(m.propertyName) ?? { conditional: false };
    if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) p.conditional = true;
    properties.set(m.propertyName, p);
  }
  declaredCache.set(cls, properties);
  return properties;
}

const quoted = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** `jsonb_build_object(…)` of an object of `cls`, its keys checked against the class. */
export function jsonObjectSql<T extends object>(cls: PayloadClass<T>, fields: PayloadSql<T>): string {
  const declared = declaredProperties(cls);
  const given = Object.entries(fields as Record<string, string | undefined>).filter(([, sql]) => sql !== undefined) as Array<
    [string, string]
  >;
  for (const [name] of given) {
    if (!declared.has(name)) throw new Error(`${cls.name} has no property "${name}"`);
  }
  for (const [name, { conditional }] of declared) {
    if (!conditional && !given.some(([n]) => n === name)) throw new Error(`${cls.name}.${name} is required and has no SQL expression`);
  }
  return `jsonb_build_object(${given.map(([name, sql]) => `${quoted(name)}, ${sql}`).join(', ')})`;
}

/** `jsonb_agg(jsonb_build_object(…) ORDER BY orderBy)`: an array property of `cls` objects, aggregated over the rows of a group. */
export function jsonArraySql<E extends object>(cls: PayloadClass<E>, fields: PayloadSql<E>, orderBy: string): SqlJsonArray<E> {
  return `jsonb_agg(${jsonObjectSql(cls, fields)} ORDER BY ${orderBy})` as SqlJsonArray<E>;
}

/**
 * An array property of `cls` objects that the caller built in code and
 * passes as one `jsonb` parameter (`param`, e.g. `$26::jsonb`), narrowed to
 * the rows a statement actually wrote: `rows` is a query of the written rows'
 * ids (`SELECT id FROM …`), `id` the elements' id property, and the array is
 * the parameter itself when every element was written (the parameter's
 * elements are one per candidate row), else its elements whose id is among
 * `rows`, in their order. For large elements: building them in SQL converts
 * every value of every element to jsonb, far dearer than parsing the
 * parameter once. The elements must hold `cls` by construction, as the
 * expressions of `jsonArraySql` must.
 */
export function jsonArrayParamSql<E extends object>(
  cls: PayloadClass<E>,
  spec: { param: string; id: keyof E & string; idType: string; written: string; rows: string },
): SqlJsonArray<E> {
  if (!declaredProperties(cls).has(spec.id)) throw new Error(`${cls.name} has no property "${spec.id}"`);
  return `CASE WHEN ${spec.written} = jsonb_array_length(${spec.param}) THEN ${spec.param}
              ELSE (SELECT jsonb_agg(e.v ORDER BY e.n) FROM jsonb_array_elements(${spec.param}) WITH ORDINALITY AS e(v, n)
                     WHERE (e.v->>${quoted(spec.id)})::${spec.idType} IN (${spec.rows})) END` as SqlJsonArray<E>;
}

export interface OutboxInsertSpec<T extends object> {
  /** The outbox's schema (the service's own). */
  schema: string;
  /** SQL expressions of the row's headers: its partition key (text), message id (uuid) and request id (text or NULL). */
  key: string;
  messageId: string;
  requestId: string;
  /** SQL expression of the row's W3C `traceparent` (text or NULL); NULL when omitted. */
  traceparent?: string;
  payload: PayloadSql<T>;
  /** What the SELECT reads from: `FROM …` and any WHERE, GROUP BY, HAVING or ORDER BY. */
  from: string;
}

/**
 * `INSERT INTO <schema>.outbox … SELECT … <from> RETURNING id`: the rows of
 * `contract` built from a query, for a CTE or a PL/pgSQL statement. The
 * text depends only on the contract and the spec, so a statement using it
 * can be prepared once.
 */
export function outboxInsertSql<T extends object>(contract: MessageContract<T>, spec: OutboxInsertSpec<T>): string {
  if (!(contract.topic in Topics)) throw new Error(`${contract.type}: unknown topic ${contract.topic}`);
  return `INSERT INTO ${outboxTable(spec.schema)} (topic, key, type, version, message_id, request_id, payload, traceparent)
           SELECT ${quoted(contract.topic)}, ${spec.key}, ${quoted(contract.type)}, ${Number(contract.version)}, ${spec.messageId}, ${spec.requestId},
                  ${jsonObjectSql(contract.payload, spec.payload)}, ${spec.traceparent ?? 'NULL'}
             ${spec.from}
           RETURNING id`;
}

/** A timestamptz column as `toISOString` writes it (UTC, milliseconds: the contracts' instants). */
export function isoInstantSql(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** `pg_notify(<channel>, '')` for the schema's outbox: delivered at commit, it wakes the relay. */
export function outboxNotifySql(schema: string): string {
  return `pg_notify(${quoted(outboxChannel(schema))}, '')`;
}

/**
 * A message that a statement of its own writes to the outbox (the change's
 * statement, in one round trip): the header values the statement passes as
 * parameters, and the publisher's `outboxInsertSql` text for it, given the
 * schema, the SQL expressions of those parameters and `R`, what the
 * statement offers to build the payload from.
 */
export interface QueuedMessage<R extends object = object> {
  messageId: string;
  requestId: string | null;
  /** The writer's W3C `traceparent` (`currentTraceparent()`), for a statement that passes it as a parameter. */
  traceparent?: string | null;
  insertSql(at: { schema: string; messageId: string; requestId: string; traceparent?: string } & R): string;
}
