// The animation clock: play, pause, step and seek over event moments; how long each event takes on screen (pure, clock injected).

// Milliseconds at 1x. Gradients travelling and .grad accumulating are what people came to see,
// so they get the time; bookkeeping events pass quickly.
export const DURATIONS = {
  edge: 900,
  accumulate: 900,
  node_begin: 420,
  backward_begin: 450,
  tensor_created: 260,
  inplace: 600,
  grad_zeroed: 600,
  grad_inplace: 600,
  grad_assigned: 600,
  error: 700,
  print: 300,
  warning: 300,
  hook: 300,
  node_end: 90,
  backward_end: 200,
};

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16];

// A long run (a training loop: thousands of events) would take many minutes at 1x; its events
// are shortened so the whole timeline plays in at most this long at 1x.
export const MAX_PLAY_MS = 120000;

/** The factor that fits a timeline's total duration at 1x into MAX_PLAY_MS (1 for short ones). */
export function timeScaleFor(events) {
  let total = 0;
  for (const ev of events) total += eventDuration(ev);
  return total > MAX_PLAY_MS ? MAX_PLAY_MS / total : 1;
}

export function eventDuration(ev) {
  return DURATIONS[ev?.event] ?? 150;
}

const MAX_EVENTS_PER_FRAME = 200;

/**
 * A player over moments 0..count. `onAdvance(pos)` is called for each event applied in order
 * (the caller updates its state incrementally), `onSeek(pos)` for a jump, and `onFrame(pos, frac)`
 * once per animation frame with the progress of the latest event's animation (1 when still).
 */
export function createPlayer({
  getCount,
  getEvent,
  onAdvance,
  onSeek,
  onFrame,
  onPlayState,
  clock,
  getTimeScale = () => 1,
}) {
  let pos = 0;
  let playing = false;
  let speed = 1;
  let until = 0;
  let animT = 0;
  let curDur = 1;
  let last = 0;
  let handle = null;
  // the last event's animation still running after playback reached its end: the button
  // already reads Play (the moment shown is the end), only the drawing finishes
  let finishing = false;

  function setPlaying(v) {
    if (playing === v) return;
    playing = v;
    onPlayState?.(v);
  }

  function applyNext() {
    pos += 1;
    curDur = Math.max(1, eventDuration(getEvent(pos - 1)) * getTimeScale());
    onAdvance(pos);
  }

  function tick() {
    handle = null;
    if (!playing && !finishing) return;
    const t = clock.now();
    animT += (t - last) * speed;
    last = t;
    let budget = MAX_EVENTS_PER_FRAME;
    while (animT >= curDur && budget-- > 0) {
      if (pos >= Math.min(until, getCount())) {
        finishing = false;
        setPlaying(false);
        onFrame(pos, 1);
        return;
      }
      animT -= curDur;
      applyNext();
    }
    reachedEnd();
    onFrame(pos, Math.min(1, animT / curDur));
    handle = clock.request(tick);
  }

  /** Once the last event is applied, playback is over though its animation still runs. */
  function reachedEnd() {
    if (playing && pos >= Math.min(until, getCount())) {
      finishing = true;
      setPlaying(false);
    }
  }

  function cancel() {
    if (handle != null) clock.cancel(handle);
    handle = null;
    finishing = false;
  }

  const api = {
    get pos() {
      return pos;
    },
    get playing() {
      return playing;
    },
    get speed() {
      return speed;
    },
    setSpeed(x) {
      speed = x > 0 ? x : 1;
    },
    /** Plays from the current moment (from the start when at the end) up to `opts.until`. */
    play(opts = {}) {
      const count = getCount();
      if (opts.from != null) api.seek(opts.from);
      else if (pos >= count) api.seek(0);
      until = Math.min(count, opts.until ?? count);
      if (pos >= until) return;
      cancel();
      setPlaying(true);
      animT = 0;
      last = clock.now();
      applyNext();
      reachedEnd();
      onFrame(pos, 0);
      handle = clock.request(tick);
    },
    pause() {
      const wasFinishing = finishing;
      cancel();
      if (playing || wasFinishing) {
        setPlaying(false);
        onFrame(pos, 1);
      }
    },
    toggle() {
      if (playing) api.pause();
      else api.play();
    },
    /** Jumps to moment p (clamped); stops playing. */
    seek(p) {
      const was = playing;
      cancel();
      if (was) setPlaying(false);
      pos = Math.max(0, Math.min(getCount(), Math.round(p)));
      onSeek(pos);
      onFrame(pos, 1);
    },
    stepForward() {
      if (playing) api.pause();
      if (pos < getCount()) {
        applyNext();
        onFrame(pos, 1);
      }
    },
    stepBack() {
      if (playing) api.pause();
      if (pos > 0) api.seek(pos - 1);
    },
    /** A new timeline: the moment is reset without animation. */
    reset(p = 0) {
      cancel();
      setPlaying(false);
      pos = Math.max(0, Math.min(getCount(), p));
    },
    dispose() {
      cancel();
      playing = false;
    },
  };
  return api;
}
