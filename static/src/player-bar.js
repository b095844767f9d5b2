// The player bar: start, step back, play/pause, step forward, end, the scrub, the speed and the moment's text.

import { h, icon, clear } from "./dom.js";
import { SPEEDS } from "./player.js";

/**
 * Builds the bar. `on`: toggle(), stepBack(), stepForward(), seek(moment), end(), speed(x),
 * iteration(it) (a loop's iteration chosen).
 */
export function createPlayerBar(on) {
  const playLabel = h("span", null, "Play");
  const playIcon = h("span", { class: "gp-icon-box" }, icon("play"));
  const playBtn = h(
    "button",
    {
      type: "button",
      class: "gp-btn primary play",
      "data-testid": "play",
      "data-playing": "false",
      "aria-label": "play",
      title: "Play / pause (space)",
    },
    playIcon,
    playLabel,
  );
  const button = (testid, label, title, name) =>
    h(
      "button",
      { type: "button", class: "gp-btn icon", "data-testid": testid, "aria-label": label, title },
      icon(name),
    );
  const backBtn = button("step-back", "step back", "Step back (←)", "back");
  const fwdBtn = button("step-forward", "step forward", "Step forward (→)", "forward");
  const startBtn = button("to-start", "go to the start", "Start (Home)", "start");
  const endBtn = button("to-end", "go to the end", "End (End)", "end");
  // the scrub's value is the moment: how many of the run's events have happened
  const scrub = h("input", {
    type: "range",
    class: "gp-scrub",
    "data-testid": "scrub",
    min: 0,
    max: 0,
    step: 1,
    value: 0,
    "aria-label": "moment on the timeline",
  });
  const speed = h(
    "select",
    { class: "gp-select", "data-testid": "speed", "aria-label": "playback speed" },
    SPEEDS.map((x) => h("option", { value: x, selected: x === 1 }, `${x}×`)),
  );
  const momentEl = h("span", { class: "gp-moment", "data-testid": "moment" });
  // a loop is drawn one iteration at a time: which one, and a way to go to another
  const iteration = h("select", {
    class: "gp-select",
    "data-testid": "iteration",
    "aria-label": "loop iteration shown",
    hidden: true,
  });
  const el = h(
    "div",
    { class: "gp-player", "data-testid": "player" },
    startBtn,
    backBtn,
    playBtn,
    fwdBtn,
    endBtn,
    scrub,
    speed,
    iteration,
    momentEl,
  );

  playBtn.addEventListener("click", () => on.toggle());
  backBtn.addEventListener("click", () => on.stepBack());
  fwdBtn.addEventListener("click", () => on.stepForward());
  startBtn.addEventListener("click", () => on.seek(0));
  endBtn.addEventListener("click", () => on.end());
  scrub.addEventListener("input", () => on.seek(Number(scrub.value)));
  speed.addEventListener("change", () => on.speed(Number(speed.value)));
  iteration.addEventListener("change", () => on.iteration(Number(iteration.value)));
  let iterationsKey = "";
  // a phone pins the bar over the bottom of the page: the page keeps room for its height
  if (typeof ResizeObserver === "function") {
    new ResizeObserver(() => {
      el.closest(".gp-root")?.style.setProperty("--gp-player-h", `${el.offsetHeight}px`);
    }).observe(el);
  }

  return {
    el,
    setPlaying(playing) {
      playLabel.textContent = playing ? "Pause" : "Play";
      playIcon.replaceChildren(icon(playing ? "pause" : "play"));
      playBtn.setAttribute("aria-label", playing ? "pause" : "play");
      playBtn.dataset.playing = playing ? "true" : "false";
    },
    /** The loop's iterations (none: the selector hides) and the one drawn. */
    setIterations(list, current) {
      const key = list.join(",");
      if (key !== iterationsKey) {
        iterationsKey = key;
        iteration.replaceChildren(
          ...list.map((it) => h("option", { value: it }, `iteration ${it + 1} of ${list.length}`)),
        );
        iteration.hidden = list.length < 2;
      }
      if (current != null && iteration.value !== String(current)) iteration.value = String(current);
    },
    /** Shows `moment` of `count` events; `text` is controller.momentText's. */
    showMoment(moment, count, text) {
      scrub.max = String(count);
      if (Number(scrub.value) !== moment) scrub.value = String(moment);
      scrub.setAttribute("aria-valuetext", `event ${moment} of ${count}`);
      clear(momentEl);
      if (text.code != null) momentEl.append(`${text.events} · line ${text.line} `, h("code", null, text.code));
      else momentEl.append(text.events);
      momentEl.dataset.pos = String(moment);
      momentEl.dataset.step = String(text.step);
      backBtn.disabled = moment <= 0;
      startBtn.disabled = moment <= 0;
      fwdBtn.disabled = moment >= count;
      endBtn.disabled = moment >= count;
    },
  };
}
