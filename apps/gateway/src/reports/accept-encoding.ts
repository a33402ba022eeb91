/** Whether `Accept-Encoding` takes gzip (named or `*`, with a weight above zero). */
export function acceptsGzip(acceptEncoding: string | undefined): boolean {
  return (acceptEncoding ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding.trim() !== 'gzip' && coding.trim() !== '*') return false;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  });
}
