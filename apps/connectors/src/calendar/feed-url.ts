/** `webcal://` is the calendar apps' name for the same feed over HTTPS. */
export function parseFeedUrl(value: string): URL | null {
  try {
    const url = new URL(value.startsWith('webcal://') ? `https://${value.slice('webcal://'.length)}` : value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}
