/**
 * `promise`, but for at most `ms`: then undefined, or the error `onTimeout`
 * makes. The timer never outlives the race.
 */
export async function within<T>(promise: Promise<T>, ms: number, onTimeout?: () => Error): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve, reject) => {
    timer = setTimeout(() => (onTimeout ? reject(onTimeout()) : resolve(undefined)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
