// The Playwright side of `bench vs-playwright`: the same user-level scenario as the harness's
// `bench scenario`, in one Node process: launch Debian's Chromium (same flags and viewport), open the
// managed Host, wait until every realm is mounted and negotiated, move to the boundary of the two
// leaves with trusted input, take a snapshot and its envelope, close.
//
// node scenario.mjs <managed Host URL> <chromium executable>
import { chromium } from 'playwright-core';

const [url, executablePath] = process.argv.slice(2);
if (!url || !executablePath) {
  console.error('usage: node scenario.mjs <managed Host URL> <chromium executable>');
  process.exit(2);
}
const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--hide-scrollbars', '--host-resolver-rules=MAP localhost 127.0.0.1'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  await page.evaluate(async () => {
    const mounted = await window.__host.ready;
    if (mounted && mounted.ok === false) throw new Error('Host errors: ' + JSON.stringify(mounted.errors));
    await window.wippyAttention.ready();
  });
  const leaf = async (side) => {
    const frame = page.frames().find((f) => f.url().includes(`leaf.html?side=${side}`));
    if (!frame) throw new Error(`no ${side} leaf frame`);
    const box = await frame.locator(`[data-landmark="${side}-leaf"]`).boundingBox();
    if (!box) throw new Error(`no box for the ${side} leaf`);
    return box;
  };
  const left = await leaf('left');
  const x = left.x + left.width, y = left.y + left.height / 2;
  await page.mouse.move(x, y, { steps: 4 });
  // The leaf realm reports its moves up asynchronously: wait until the runtime's pointer is there.
  const envelope = await page.evaluate(async ([x, y]) => {
    const deadline = performance.now() + 5000;
    for (;;) {
      const snap = await window.wippyAttention.snapshot();
      const p = snap.pointer && snap.pointer.point;
      if (p && Math.abs(p.x - x) <= 1 && Math.abs(p.y - y) <= 1) return window.wippyAttention.envelope(snap);
      if (performance.now() > deadline) throw new Error('the runtime pointer never reached the boundary');
      await new Promise((r) => requestAnimationFrame(r));
    }
  }, [x, y]);
  if (!String(envelope.content_hash).startsWith('sha256:')) throw new Error('no envelope');
} finally {
  await browser.close();
}
