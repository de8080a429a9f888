/*
 * Ground truth of every leaf realm, independent of the Attention runtime: what this realm really
 * received, recorded into `window.__leafLog` (read by the harness through CDP), Wippy-tracer style
 * counters on the leaf button, and `window.__landmarkRect`. Loaded as the first page script of
 * each leaf realm (iframe document, fragment content, srcdoc), so it also records whether the
 * runtime had already run: `window.__runtimeBeforePageScripts`.
 */
(function () {
  'use strict';
  window.__runtimeBeforePageScripts = !!window.__wippyAttentionRuntime;

  var TYPES = [
    'pointermove',
    'pointerdown',
    'pointerup',
    'click',
    'touchstart',
    'touchend',
    'keydown',
    'keyup',
    'focusin',
    'focusout',
    'input',
  ];

  function name(el) {
    if (!el || el.nodeType !== 1) return el && el.nodeName ? String(el.nodeName).toLowerCase() : null;
    return el.getAttribute('data-landmark') || el.localName;
  }

  function bump(button, attr) {
    button.setAttribute(attr, String(+(button.getAttribute(attr) || 0) + 1));
  }

  /**
   * Records every event of TYPES that reaches `root` (an element or a shadow root; capture phase, so
   * listeners inside a shadow root see the real target). `leaf()` returns the leaf button whose
   * tracer attributes are kept.
   */
  window.__installLeafLog = function (root, leaf) {
    var log = window.__leafLog || (window.__leafLog = []);
    function record(e) {
      var entry = { type: e.type, isTrusted: e.isTrusted, target: name(e.target), x: null, y: null, t: e.timeStamp };
      var p = e.changedTouches && e.changedTouches.length ? e.changedTouches[0] : e;
      if (typeof p.clientX === 'number') {
        entry.x = p.clientX;
        entry.y = p.clientY;
      }
      if (e.pointerType !== undefined) entry.pointerType = e.pointerType;
      if (e.key !== undefined) {
        entry.key = e.key;
        entry.code = e.code;
      }
      log.push(entry);
      var button = leaf();
      if (!button || e.target !== button) return;
      if (e.type === 'pointermove') bump(button, 'data-pointer-move-count');
      if (e.type === 'pointerdown') bump(button, 'data-pointer-down-count');
      if (e.type === 'click') bump(button, 'data-click-count');
      if (e.type.indexOf('pointer') === 0) {
        button.setAttribute('data-last-pointer-trusted', String(e.isTrusted));
        button.setAttribute('data-last-pointer-type', e.pointerType || '');
      }
      if (e.type === 'focusin') button.setAttribute('data-focus-trusted', String(e.isTrusted));
      if (e.type === 'keydown') {
        button.setAttribute('data-key-trusted', String(e.isTrusted));
        button.setAttribute('data-last-key', e.code);
      }
    }
    for (var i = 0; i < TYPES.length; i++) root.addEventListener(TYPES[i], record, { capture: true, passive: true });
  };

  /** `window.__landmarkRect(name)`: a landmark's rect in this realm's viewport (document, then `shadow`). */
  window.__installLandmarkRect = function (shadow) {
    window.__landmarkRect = function (landmark) {
      var sel = '[data-landmark="' + landmark + '"]';
      var el = document.querySelector(sel) || (shadow ? shadow.querySelector(sel) : null);
      if (!el) return null;
      var r = el.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
  };
})();
