// The caption page: reads the server's /events stream (engine/share/feed.py describes its
// messages) and draws the captions. Settled words never change; provisional and unstable ones
// are drawn as such; only settled text goes to the live region that screen readers announce.
"use strict";
(function () {
  const params = new URLSearchParams(location.search);
  const root = document.documentElement;
  const captions = document.getElementById("captions");
  const spoken = document.getElementById("spoken");
  const status = document.getElementById("status");

  function number(name, low, high, otherwise) {
    const value = parseInt(params.get(name), 10);
    return Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : otherwise;
  }
  function colour(name) {
    const value = params.get(name) || "";
    if (/^[0-9a-fA-F]{3,8}$/.test(value)) return "#" + value;
    return /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,20})$/.test(value) ? value : null;
  }
  root.style.setProperty("--lines", String(number("lines", 1, 50, 3)));
  root.style.setProperty("--size", number("size", 8, 400, 36) + "px");
  if (params.get("theme") === "light") root.classList.add("light");
  if (params.get("bg") === "transparent") root.classList.add("transparent");
  else if (colour("bg")) root.style.setProperty("--bg", colour("bg"));
  if (colour("fg")) root.style.setProperty("--fg", colour("fg"));
  const transcript = params.get("mode") === "transcript";
  if (transcript) root.classList.add("transcript");
  const shown = transcript ? 5000 : 400; // the words drawn: the captions' tail

  let words = []; // position -> {text, state, speaker, label}
  let unstable = [];
  let spokenThrough = 0; // the live region has had every settled word before this position
  const speakerClass = new Map();
  let drawPending = false;

  function classOf(speaker) {
    if (!speakerClass.has(speaker)) speakerClass.set(speaker, "s" + ((speakerClass.size % 4) + 1));
    return speakerClass.get(speaker);
  }

  function apply(message) {
    switch (message.type) {
      case "snapshot":
        words = [];
        message.words.forEach((word, i) => { words[message.from + i] = word; });
        unstable = message.unstable;
        spokenThrough = words.length; // a late viewer is not read what was said before it came
        break;
      case "word":
        words[message.position] = message;
        break;
      case "retracted":
        words.length = Math.min(words.length, message.from);
        spokenThrough = Math.min(spokenThrough, message.from);
        break;
      case "unstable":
        unstable = message.words;
        break;
      case "end":
        status.textContent = "Sharing stopped: " + message.reason;
        source.close();
        break;
    }
    announceSettled();
    if (!drawPending) {
      drawPending = true;
      requestAnimationFrame(draw);
    }
  }

  function announceSettled() {
    const said = [];
    while (spokenThrough < words.length && words[spokenThrough] && words[spokenThrough].state === "settled") {
      said.push(words[spokenThrough].text);
      spokenThrough += 1;
    }
    if (!said.length) return;
    const part = document.createElement("span");
    part.textContent = said.join(" ") + " ";
    spoken.appendChild(part);
    while (spoken.childNodes.length > 20) spoken.removeChild(spoken.firstChild);
  }

  function turn(speaker, label) {
    const line = document.createElement("p");
    line.className = "turn";
    line.dir = "auto";
    if (label) {
      const name = document.createElement("span");
      name.className = "label " + classOf(speaker);
      name.dir = "auto"; // its own direction: the line's is told by its words
      name.textContent = label + ": ";
      line.appendChild(name);
    }
    return line;
  }

  function draw() {
    drawPending = false;
    const fragment = document.createDocumentFragment();
    let line = null;
    let speaker = null;
    const add = (word, state, position) => {
      if (line === null || word.speaker !== speaker) {
        speaker = word.speaker;
        line = turn(word.speaker, word.label);
        fragment.appendChild(line);
      } else {
        line.appendChild(document.createTextNode(" "));
      }
      const span = document.createElement("span");
      span.className = "w " + state;
      if (position !== null) span.dataset.position = String(position);
      span.textContent = word.text;
      line.appendChild(span);
    };
    for (let p = Math.max(0, words.length - shown); p < words.length; p++) {
      if (words[p]) add(words[p], words[p].state, p);
    }
    unstable.forEach((word) => add(word, "unstable", null));
    captions.replaceChildren(fragment);
    if (transcript) window.scrollTo(0, document.body.scrollHeight);
  }

  const source = new EventSource("events");
  source.onmessage = (event) => {
    status.textContent = "";
    apply(JSON.parse(event.data));
  };
  source.addEventListener("end", (event) => apply(JSON.parse(event.data)));
  source.onerror = () => {
    status.textContent = source.readyState === EventSource.CLOSED ? "Not shared (the link may have been renewed)" : "Reconnecting…";
  };
})();
