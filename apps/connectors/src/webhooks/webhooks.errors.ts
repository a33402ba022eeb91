import { ErrorCode } from '@worktrack/contracts';
import { DomainError } from '@worktrack/platform';

/** D-36: an unknown connector, another provider's, or a deleted one look the same. */
export const webhookNotFound = (): DomainError => new DomainError(ErrorCode.NOT_FOUND, 'No such webhook.');

/** ADR 0011: the requester's key the secret is sealed to. */
export const notAnX25519Key = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'publicKey is not an X25519 public key.', [
    { path: 'publicKey', issue: 'must be an X25519 SPKI key, base64' },
  ]);

/** ADR 0011: a reduced delivery whose attestation the secret does not confirm. */
export const attestationMismatch = (): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, 'The edge attestation does not match the webhook secret.');

export const githubSignatureMismatch = (): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, 'X-Hub-Signature-256 is missing or does not match the webhook secret.');

export const githubHeadersMissing = (missing: string[]): DomainError =>
  new DomainError(
    ErrorCode.VALIDATION_FAILED,
    'A GitHub delivery needs its event and delivery headers.',
    missing.map((h) => ({ path: h, issue: 'header is required' })),
  );

export const slackNeverReduced = (): DomainError =>
  new DomainError(ErrorCode.UNAUTHENTICATED, 'Slack deliveries are forwarded as signed, never reduced.');

export const slackSignatureRefused = (why: string): DomainError => new DomainError(ErrorCode.UNAUTHENTICATED, why);

export const unmappableBody = (provider: string, providerEvent: string, reason: string): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, `The delivery is not a valid ${provider} ${providerEvent} body.`, [
    { path: 'body', issue: reason },
  ]);

export const formPayloadMissing = (): DomainError =>
  new DomainError(ErrorCode.VALIDATION_FAILED, 'A form-encoded delivery needs a payload field.');

export const bodyNotJson = (): DomainError => new DomainError(ErrorCode.INVALID_JSON, 'The delivery body is not valid JSON.');
