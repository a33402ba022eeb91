import { useId, useState, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { ApiError, sentenceFor } from '../lib/errors';

/** A failure said in a sentence (never a stack or JSON), with "Try again" when trying again can help. */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (!error) return null;
  const retryable = !(error instanceof ApiError) || error.retryable;
  const details = error instanceof ApiError && error.code === 'VALIDATION_FAILED' ? error.details : [];
  return (
    <div role="alert" className="notice error">
      <p>{sentenceFor(error)}</p>
      {details.length > 0 && (
        <ul>
          {details.map((d) => (
            <li key={`${d.path}:${d.issue}`}>
              {d.path}: {d.issue}
            </li>
          ))}
        </ul>
      )}
      {retryable && onRetry && (
        <button type="button" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

type FieldProps = { label: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>;

/** A labelled input: the label is the field's accessible name. */
export function Field({ label, hint, ...input }: FieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

export function SelectField({
  label,
  children,
  ...select
}: { label: string; children: ReactNode } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select}>
        {children}
      </select>
    </div>
  );
}

/** A secret shown once (API token, agent token, hook secret), in a named element, with a copy button. */
export function ShownOnce({ name, value, note }: { name: string; value: string; note?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="once">
      <p>{note ?? 'Copy it now: it is shown only once.'}</p>
      <output aria-label={name} className="secret">
        {value}
      </output>
      <button type="button" onClick={() => void copy()}>
        {copied ? 'Copied' : `Copy ${name.toLowerCase()}`}
      </button>
      <span role="status" className="visually-hidden">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </div>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="card">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="muted">
      Loading {what}…
    </p>
  );
}
