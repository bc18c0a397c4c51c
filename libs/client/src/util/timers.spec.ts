import { systemTimers } from './timers.js';

describe('systemTimers', () => {
  it('waits on a delay above 2^31-1 ms instead of firing at once (Node overflows it to 1 ms)', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on('warning', onWarning);
    let fired = false;
    const handle = systemTimers.setTimeout(() => {
      fired = true;
    }, 2 ** 32);
    try {
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(fired).toBe(false);
      expect(warnings.filter((w) => w.name === 'TimeoutOverflowWarning')).toEqual([]);
    } finally {
      systemTimers.clearTimeout(handle);
      process.off('warning', onWarning);
    }
  });

  it('fires an ordinary delay', async () => {
    await new Promise<void>((resolve) => systemTimers.setTimeout(resolve, 1));
  });
});
