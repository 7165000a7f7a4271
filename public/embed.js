/*
 * Agent Scheduler embed: booking pages on your own site (docs/public-scheduling.md "Embedding").
 *
 *   <div data-scheduler-embed="https://scheduler.example/ada/intro"></div>              inline
 *   <button data-scheduler-popup="https://scheduler.example/ada/intro">Book</button>    pop-up
 *   <script src="https://scheduler.example/embed.js" async></script>
 *
 * The frame is sized to its page. What happens in it reaches the element as a bubbling
 * `scheduler:event` DOM event, detail {event, proposal_ref, link?, meeting_type?}, event one of
 * booking.proposed, booking.booked, booking.cancelled. Messages are taken only from our own
 * origin (this script's) and from a frame this script made; the page in the frame talks only to
 * a verified domain of the link's customer, which the page's frame-ancestors enforces anyway.
 */
(function () {
  'use strict';
  var me = document.currentScript;
  if (!me || !me.src) return;
  var ORIGIN = new URL(me.src).origin;
  var EVENTS = ['booking.proposed', 'booking.booked', 'booking.cancelled'];
  var frames = [];

  function frameFor(url, owner, title) {
    var u = new URL(url, ORIGIN);
    if (u.origin !== ORIGIN) return null;
    var f = document.createElement('iframe');
    f.src = u.href;
    f.title = title || 'Book a meeting';
    f.style.cssText = 'display:block;width:100%;height:480px;border:0;color-scheme:normal';
    // Ask the page in the frame to talk to us; sent to our origin only, again after each navigation.
    f.addEventListener('load', function () {
      if (f.contentWindow) f.contentWindow.postMessage({ type: 'scheduler:hello' }, ORIGIN);
    });
    frames.push({ frame: f, owner: owner, popup: false });
    return f;
  }

  function inline(el) {
    if (el.getAttribute('data-scheduler-ready')) return;
    el.setAttribute('data-scheduler-ready', '1');
    var f = frameFor(el.getAttribute('data-scheduler-embed'), el, el.getAttribute('data-scheduler-title'));
    if (f) el.appendChild(f);
  }

  function popup(el) {
    if (el.getAttribute('data-scheduler-ready')) return;
    el.setAttribute('data-scheduler-ready', '1');
    var dialog = null;
    el.addEventListener('click', function (e) {
      e.preventDefault();
      if (!dialog) {
        dialog = document.createElement('dialog');
        dialog.setAttribute('aria-label', el.getAttribute('data-scheduler-title') || 'Book a meeting');
        dialog.style.cssText = 'width:min(720px,calc(100vw - 2rem));max-height:90vh;padding:0;border:0;border-radius:12px;overflow:auto';
        var close = document.createElement('button');
        close.type = 'button';
        close.textContent = 'Close';
        close.style.cssText = 'position:sticky;top:0;float:right;margin:8px;z-index:1';
        close.addEventListener('click', function () { dialog.close(); });
        var f = frameFor(el.getAttribute('data-scheduler-popup'), el, el.getAttribute('data-scheduler-title'));
        if (!f) return;
        frames[frames.length - 1].popup = true;
        dialog.appendChild(close);
        dialog.appendChild(f);
        document.body.appendChild(dialog);
      }
      dialog.showModal();
    });
  }

  window.addEventListener('message', function (e) {
    if (e.origin !== ORIGIN) return;
    var entry = null;
    for (var i = 0; i < frames.length; i++) if (frames[i].frame.contentWindow === e.source) entry = frames[i];
    var d = e.data;
    if (!entry || !d || d.source !== 'scheduler') return;
    if (d.type === 'scheduler:resize' && typeof d.height === 'number' && d.height > 0) {
      entry.frame.style.height = Math.min(Math.ceil(d.height), entry.popup ? Math.floor(window.innerHeight * 0.85) : 20000) + 'px';
    } else if (d.type === 'scheduler:event' && EVENTS.indexOf(d.event) >= 0) {
      var detail = { event: d.event, proposal_ref: typeof d.proposal_ref === 'string' && /^pr_[0-9a-f]{32}$/.test(d.proposal_ref) ? d.proposal_ref : null };
      if (typeof d.link === 'string') detail.link = d.link;
      if (typeof d.meeting_type === 'string') detail.meeting_type = d.meeting_type;
      entry.owner.dispatchEvent(new CustomEvent('scheduler:event', { bubbles: true, detail: detail }));
    }
  });

  function scan() {
    document.querySelectorAll('[data-scheduler-embed]').forEach(inline);
    document.querySelectorAll('[data-scheduler-popup]').forEach(popup);
  }
  window.SchedulerEmbed = { scan: scan };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
  else scan();
})();
