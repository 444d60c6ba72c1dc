// The bar shown while the chat starts. It fills one step a second, quickly at first, then
// creeps towards its end: the chat is ready long before that on most visits. The steps are set
// from a timer, not by a CSS animation. While an animation runs, even a stepped one, the
// compositor draws every frame. On the 2-core test machine, which composites in software, a
// first visit spent 35-65 ms more CPU drawing frames for a bar that changes once a second
// (two A/Bs, docs/benchmarks.md).

/** [second, fill]: the bar's fill at each point, straight between them (one step a second). */
const MILESTONES = [[0, 0.1], [2, 0.4], [5, 0.65], [10, 0.85], [20, 0.95]];

/** How full the bar is `second` whole seconds after the start (0.1 up to 0.95). */
export function fillAt(second) {
  for (let i = 1; i < MILESTONES.length; i += 1) {
    const [t0, v0] = MILESTONES[i - 1];
    const [t1, v1] = MILESTONES[i];
    if (second <= t1) return v0 + ((v1 - v0) * (Math.max(second, t0) - t0)) / (t1 - t0);
  }
  return MILESTONES[MILESTONES.length - 1][1];
}

/** The last second at which the bar still moves. */
export const LAST_STEP = MILESTONES[MILESTONES.length - 1][0];

/**
 * Steps `bar` (its `--ck-fill`, which the stylesheet draws) once a second from now on. It
 * stops by itself at the last step, or when the bar has left the page (removed once the chat
 * is ready, or the element removed).
 * @param {{isConnected: boolean, style: {setProperty(name: string, value: string): void}}} bar
 */
export function fillSteadily(bar) {
  let second = 0;
  bar.style.setProperty("--ck-fill", String(fillAt(0)));
  const timer = setInterval(() => {
    second += 1;
    if (!bar.isConnected || second > LAST_STEP) clearInterval(timer);
    else bar.style.setProperty("--ck-fill", fillAt(second).toFixed(3));
  }, 1000);
}
