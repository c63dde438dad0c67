// The chat page's own behaviour, in the browser: what Gradio's components do not do.
// Loaded once in the page head (ui.layout.mount_ui). Every handler is delegated from the
// document, because Gradio re-renders the chat's messages as they stream. Nothing here
// reads from or writes to the server: the server's state is changed only through Gradio's
// own widgets (the sort request box, the buttons).
(() => {
  "use strict";
  const THEME_KEY = "icml-rag-theme";

  // --- the question box: a live "n / 2,000" counter --------------------------------------
  let limit = 0;
  function updateCounter() {
    const box = document.querySelector("#question textarea");
    const counter = document.querySelector("#question-count .rag-count");
    if (!box || !counter) return;
    if (!limit) limit = Number((counter.textContent.split("/")[1] || "2000").replace(/[^0-9]/g, ""));
    const n = box.value.length;
    const shown = `${n.toLocaleString("en-US")} / ${limit.toLocaleString("en-US")}`;
    // Only a change is written: the page's observer would otherwise see its own write.
    if (counter.textContent !== shown) counter.textContent = shown;
    counter.classList.toggle("rag-over", n > limit);
  }
  document.addEventListener("input", (e) => {
    if (e.target.closest && e.target.closest("#question")) updateCounter();
  });

  // --- citation cards: hover or tap [n] or a source chip ----------------------------------
  let card = null;
  let cardFor = null;
  function referenceOf(link) {
    const href = link.getAttribute("href") || "";
    if (!href.startsWith("#")) return null;
    return document.getElementById(href.slice(1));
  }
  function text(el, selector) {
    const found = el.querySelector(selector);
    if (!found) return "";
    // Typeset math carries its source twice (MathML, annotation): the visible glyphs only.
    const copy = found.cloneNode(true);
    copy.querySelectorAll(".katex-mathml").forEach((e) => e.remove());
    return copy.textContent.trim();
  }
  function closeCard() {
    if (card) card.remove();
    card = null;
    cardFor = null;
  }
  function newTabLink(href, label) {
    const a = document.createElement("a");
    a.href = href;
    a.target = "_blank";
    a.rel = "noopener noreferrer";
    a.textContent = label;
    return a;
  }
  function openCard(link) {
    const ref = referenceOf(link);
    if (!ref) return;
    if (cardFor === link && card) return;
    closeCard();
    card = document.createElement("div");
    card.className = "rag-card";
    card.setAttribute("role", "dialog");
    const title = ref.querySelector(".rag-ref-title");
    const head = document.createElement("div");
    head.className = "rag-card-title";
    if (title && title.tagName === "A") {
      head.appendChild(newTabLink(title.href, text(ref, ".rag-ref-title")));
    } else {
      head.textContent = text(ref, ".rag-ref-title");
    }
    card.appendChild(head);
    const authors = ref.querySelector(".rag-authors");
    const meta = document.createElement("div");
    meta.className = "rag-card-meta";
    meta.textContent = [authors ? authors.getAttribute("title") || authors.textContent : "",
                        text(ref, ".rag-status")].filter(Boolean).join(" · ");
    card.appendChild(meta);
    const quote = text(ref, ".rag-quote") || text(ref, ".rag-snippet");
    if (quote) {
      const q = document.createElement("blockquote");
      q.className = "rag-card-quote";
      q.textContent = quote;
      card.appendChild(q);
    }
    const actions = document.createElement("div");
    actions.className = "rag-card-actions";
    if (title && title.tagName === "A") actions.appendChild(newTabLink(title.href, "OpenReview"));
    const bib = text(ref, ".rag-bib");
    if (bib) {
      const copy = document.createElement("button");
      copy.type = "button";
      copy.className = "rag-card-bib";
      copy.textContent = "Copy BibTeX";
      copy.addEventListener("click", (e) => {
        e.stopPropagation();
        copyText(bib, copy, "BibTeX copied");
      });
      actions.appendChild(copy);
    }
    card.appendChild(actions);
    document.body.appendChild(card);
    const box = link.getBoundingClientRect();
    const width = Math.min(420, window.innerWidth - 16);
    card.style.width = `${width}px`;
    const left = Math.max(8, Math.min(box.left + window.scrollX, window.scrollX + window.innerWidth - width - 8));
    card.style.left = `${left}px`;
    card.style.top = `${box.bottom + window.scrollY + 6}px`;
    cardFor = link;
  }
  const CITES = "a.rag-cite, a.rag-source";
  document.addEventListener("mouseover", (e) => {
    const link = e.target.closest && e.target.closest(CITES);
    if (link) openCard(link);
  });
  document.addEventListener("mouseout", (e) => {
    const link = e.target.closest && e.target.closest(CITES);
    const to = e.relatedTarget;
    if (link && card && !(to && (card.contains(to) || link.contains(to)))) {
      setTimeout(() => { if (card && !card.matches(":hover") && !link.matches(":hover")) closeCard(); }, 250);
    }
  });
  document.addEventListener("focusin", (e) => {
    const link = e.target.closest && e.target.closest(CITES);
    if (link) openCard(link);
  });
  document.addEventListener("click", (e) => {
    const link = e.target.closest && e.target.closest(CITES);
    if (link) {
      // A tap opens the card (a touch screen has no hover); a second tap follows the link.
      if (cardFor !== link) {
        e.preventDefault();
        openCard(link);
      }
      return;
    }
    if (card && !card.contains(e.target)) closeCard();
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeCard(); });

  // --- copying: an answer as Markdown with its references, a BibTeX entry ----------------
  function copyText(value, button, done) {
    const finish = () => {
      const before = button.textContent;
      button.textContent = done;
      button.classList.add("rag-copied");
      setTimeout(() => { button.textContent = before; button.classList.remove("rag-copied"); }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(finish, () => fallbackCopy(value) && finish());
    } else if (fallbackCopy(value)) {
      finish();
    }
  }
  function fallbackCopy(value) {
    const area = document.createElement("textarea");
    area.value = value;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
    area.remove();
    return ok;
  }
  document.addEventListener("click", (e) => {
    const button = e.target.closest && e.target.closest("button.rag-copy");
    if (!button) return;
    const message = button.closest(".rag-answer");
    const md = message ? message.querySelector(".rag-md") : null;
    if (md) {
      window.__ragCopied = md.textContent;  // what was copied, for the browser tests
      copyText(md.textContent, button, "Copied");
    }
  });

  // --- the last message's regenerate and edit: Gradio's hidden buttons do the work -------
  document.addEventListener("click", (e) => {
    const action = e.target.closest && e.target.closest("button.rag-turn-action");
    if (!action) return;
    const target = action.classList.contains("rag-regenerate") ? "#regenerate" : "#edit-last";
    const button = document.querySelector(target);
    if (button) button.click();
  });
  function markLast() {
    const messages = document.querySelectorAll("#chat .rag-answer, #chat .rag-error");
    const streaming = document.querySelector("#chat .rag-streaming") !== null;
    messages.forEach((m, i) => m.classList.toggle("rag-last", !streaming && i === messages.length - 1));
  }

  // --- a new answer is read from its start: the chat scrolls to it, not to its end --------
  let lastAnswers = 0;
  function scrollBox(el) {
    let box = el.parentElement;
    while (box && !(box.scrollHeight > box.clientHeight + 1 &&
                    ["auto", "scroll"].includes(getComputedStyle(box).overflowY))) {
      box = box.parentElement;
    }
    return box;
  }
  function followNewAnswer() {
    const answers = document.querySelectorAll("#chat .rag-answer, #chat .rag-error");
    if (answers.length > lastAnswers) {
      const latest = answers[answers.length - 1];
      const question = latest.closest(".message-row") && latest.closest(".message-row").previousElementSibling;
      const target = question && question.querySelector(".rag-question") ? question : latest;
      const box = scrollBox(target);
      if (box) box.scrollTop += target.getBoundingClientRect().top - box.getBoundingClientRect().top - 8;
    }
    lastAnswers = answers.length;
  }

  // --- the set table: a click on a column header sorts by it (through a Gradio box) -------
  document.addEventListener("click", (e) => {
    const head = e.target.closest && e.target.closest("#set-table th[class*='rag-key-']");
    if (!head) return;
    const key = [...head.classList].find((c) => c.startsWith("rag-key-")).slice(8);
    const descending = head.classList.contains("rag-sorted") && head.getAttribute("aria-sort") === "ascending";
    const box = document.querySelector("#set-sort-request textarea, #set-sort-request input");
    if (!box) return;
    box.value = `${key}:${descending ? "descending" : "ascending"}:${Date.now()}`;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  });
  document.addEventListener("click", (e) => {
    const open = e.target.closest && e.target.closest("a.rag-open-table");
    if (!open) return;
    e.preventDefault();
    showPanel(0);
  });
  function showPanel(attempt) {
    // The panel is drawn by a later Gradio update than the answer: wait until it is in the
    // page and has a size.
    if (attempt > 100) return;
    const panel = document.getElementById("set-panel");
    if (!panel || !panel.getClientRects().length) { setTimeout(() => showPanel(attempt + 1), 100); return; }
    panel.scrollIntoView({ behavior: "smooth", block: "start" });
    // A smooth scroll stops when the layout moves under it; finish it without animation.
    setTimeout(() => {
      const top = panel.getBoundingClientRect().top;
      if (top < -2 || top >= innerHeight / 2) panel.scrollIntoView({ block: "start" });
    }, 1200);
  }

  // --- light and dark -----------------------------------------------------------------------
  function applyTheme(theme) {
    document.body.classList.toggle("dark", theme === "dark");
    document.documentElement.classList.toggle("dark", theme === "dark");
  }
  window.ragToggleTheme = () => {
    const dark = !document.body.classList.contains("dark");
    localStorage.setItem(THEME_KEY, dark ? "dark" : "light");
    applyTheme(dark ? "dark" : "light");
  };
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest("#theme-toggle")) window.ragToggleTheme();
  });

  // --- on a phone the chat comes first: the side panels start folded ---------------------
  let folded = false;
  const FOLDED = "#options > .label-wrap.open, #conversations > .label-wrap.open";
  function fold(attempt) {
    // Gradio wires the toggles a moment after drawing them: a click before that is lost.
    const open = document.querySelectorAll(FOLDED);
    if (!open.length || attempt > 10) return;
    open.forEach((t) => t.click());
    setTimeout(() => fold(attempt + 1), 300);
  }
  function foldOnPhone() {
    if (folded || window.innerWidth >= 700) return;
    if (!document.querySelector("#options > .label-wrap")) return;  // not drawn yet
    folded = true;
    fold(0);
  }

  // --- once the app is on the page ----------------------------------------------------------
  function ready() {
    const stored = localStorage.getItem(THEME_KEY);
    if (stored) applyTheme(stored);
    updateCounter();
    new MutationObserver(() => { foldOnPhone(); followNewAnswer(); markLast(); updateCounter(); })
      .observe(document.body, { subtree: true, childList: true });
    // The box is enabled once the stored conversation is back: then it takes the focus
    // (not on a phone, where focus opens the keyboard over the chat).
    let focused = false;
    new MutationObserver(() => {
      const box = document.querySelector("#question textarea");
      if (focused || !box || box.disabled || window.innerWidth < 700) return;
      focused = true;
      box.focus();
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ["disabled"] });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
