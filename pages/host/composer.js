// The reference Host's composer talking to the reference Session (spec "Message delivery", "Session
// capability descriptor", "Message attachment contract"; schemas.md §10-§12).
//
// - Reads the bearer token from <meta name="wippy-session-token"> (filled in by the server), reads
//   GET /api/v1/sessions/capabilities (404 = a Session without Attention), joins the Session socket
//   /api/v1/ws/join?token=... and gets its session id and Attention setting in the welcome frame.
// - The automatic pointing-context toggle PATCHes /api/v1/sessions/{id}/attention-context with the
//   current expected_revision; it is disabled when the Session has no Attention support.
// - A send builds `session_message` with the text, runtime_context (only for an Attention Session)
//   and, when automatic context is on, context_attachments = [the runtime's envelope of a fresh
//   snapshot]. Delivery is chosen from the complete encoded UTF-8 command, exactly as
//   harness/src/contract/delivery.rs `choose_delivery`: <= 32,768 bytes inline, otherwise POST the
//   canonical array to /api/v1/sessions/context and send context_attachments_ref.
// - Each submitted row shows its state: sending, sent, received, "Undelivered" (rejected) or
//   "Delivery not confirmed" (no receipt within the timeout). Nothing is ever resent by itself; a
//   rejected text is put back in the composer only if the composer is still empty (a later draft is
//   never overwritten).
//
// Test surface: window.__host.session (see pages/README.md).

/** Largest command sent inline: harness/src/contract/delivery.rs MAX_INLINE_COMMAND_BYTES. */
export const MAX_INLINE_COMMAND_BYTES = 32768;

/** The same decision as delivery.rs `choose_delivery`. */
export function chooseDelivery(encodedCommandBytes) {
  return encodedCommandBytes <= MAX_INLINE_COMMAND_BYTES ? 'inline' : 'staged';
}

const utf8Length = (s) => new TextEncoder().encode(s).length;

function randomId() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const params = new URLSearchParams(location.search);
// How long a sent message waits for its receipt (`?receipt_timeout_ms=`, tests: setReceiptTimeout).
let receiptTimeoutMs = Number(params.get('receipt_timeout_ms')) || 10000;

/**
 * Wires the composer (form, textarea, toggle button, conversation list) to the Session.
 * Returns the test surface.
 */
export function attachSession({ input, toggle, log, uploads, onActionRequest, onActionCancel, onSocketClosed }) {
  const meta = document.querySelector('meta[name="wippy-session-token"]');
  const token = meta && /^[0-9a-f]{16,}$/.test(meta.content) ? meta.content : null;
  const state = {
    status: 'connecting',
    sessionId: null,
    socketId: null,
    capabilities: null,
    capabilitiesStatus: null,
    support: { supported: false, attention_versions: [], attention_version: null, staging: false },
    attention: null,
    automatic: false,
    rows: [],
    pinned: null,
    error: null,
    /** Prepared captures: removable composer files (uploads of this session), oldest first. */
    files: [],
  };
  let socket = null;
  const pending = new Map();
  let resolveReady;
  const ready = new Promise((r) => {
    resolveReady = r;
  });

  const auth = { Authorization: `Bearer ${token}` };

  function decide(status, body) {
    // delivery.rs decide_from_response: 404 (or anything but 200) means no Attention.
    const none = { supported: false, attention_versions: [], attention_version: null, staging: false };
    if (status !== 200 || !body || !body.capabilities) return none;
    const c = body.capabilities;
    const a = c.attention || {};
    const supported = c.schema === 'wippy.session.capabilities.v1' && a.context >= 1 && a.browser_operations >= 1;
    const ca = a.context_attachments || {};
    const versions = (ca.handlers || []).filter((h) => h.kind === 'wippy.attention').flatMap((h) => h.versions || []);
    const best = versions.filter((v) => Number.isInteger(v) && v >= 1 && v <= 4).sort((x, y) => y - x)[0] ?? null;
    return {
      supported,
      attention_versions: versions,
      attention_version: supported ? best : null,
      staging: supported && ca.staging === true,
    };
  }

  function showToggle() {
    const on = state.automatic;
    toggle.setAttribute('aria-pressed', String(on));
    toggle.disabled = !state.support.supported || !state.sessionId;
    toggle.textContent = on ? 'Context: on' : 'Context: off';
    toggle.setAttribute(
      'aria-label',
      on
        ? 'Automatically attach pointing context (pointing context selected)'
        : 'Automatically attach pointing context',
    );
  }

  async function connect() {
    if (!token) {
      state.status = 'no-token';
      state.error = 'meta wippy-session-token missing';
      resolveReady(snapshotState());
      return;
    }
    try {
      const r = await fetch('/api/v1/sessions/capabilities', { headers: auth, cache: 'no-store' });
      state.capabilitiesStatus = r.status;
      const body = r.status === 200 ? await r.json() : null;
      state.capabilities = body && body.capabilities;
      state.support = decide(r.status, body);
    } catch (e) {
      state.support = decide(0, null);
      state.error = String(e);
    }
    const url = `${location.origin.replace(/^http/, 'ws')}/api/v1/ws/join?token=${encodeURIComponent(token)}`;
    open(url);
  }

  function open(url) {
    const mine = new WebSocket(url);
    socket = mine;
    mine.addEventListener('message', (ev) => onFrame(ev.data));
    mine.addEventListener('close', (ev) => {
      if (socket !== mine) return;
      if (onSocketClosed) onSocketClosed();
      state.status = 'closed';
      state.closeCode = ev.code;
      showToggle();
    });
    mine.addEventListener('error', () => {
      state.error = 'socket error';
      resolveReady(snapshotState());
    });
  }

  function onFrame(text) {
    let frame;
    try {
      frame = JSON.parse(text);
    } catch {
      return;
    }
    if (frame.type === 'session_ui_action_request') {
      if (onActionRequest && frame.session_id === state.sessionId) onActionRequest(frame.data);
      return;
    }
    // Our addition to relay.md: the tool cancelled the action; the overlay closes without a result.
    if (frame.type === 'session_ui_action_cancel') {
      if (onActionCancel && frame.session_id === state.sessionId) onActionCancel(frame.data);
      return;
    }
    if (frame.type === 'welcome') {
      state.sessionId = frame.session_id;
      state.socketId = frame.socket_id;
      state.attention = frame.attention_context;
      state.automatic = !!(state.support.supported && state.attention && state.attention.enabled);
      state.status = 'open';
      showToggle();
      resolveReady(snapshotState());
      return;
    }
    const row = frame.request_id && pending.get(frame.request_id);
    if (!row) return;
    pending.delete(frame.request_id);
    clearTimeout(row.timer);
    if (frame.type === 'received') {
      row.message_id = frame.message_id;
      setRow(row, 'received');
    } else {
      row.code = frame.code;
      row.detail_code = frame.detail_code ?? null;
      undelivered(row);
    }
  }

  async function setAutomatic(enabled) {
    const body = { enabled };
    if (state.attention) body.expected_revision = state.attention.revision;
    const r = await fetch(`/api/v1/sessions/${encodeURIComponent(state.sessionId)}/attention-context`, {
      method: 'PATCH',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await r.json();
    if (answer.attention_context) state.attention = answer.attention_context;
    state.automatic = !!(state.attention && state.attention.enabled);
    showToggle();
    return { status: r.status, body: answer };
  }

  toggle.addEventListener('click', () => {
    if (toggle.disabled) return;
    setAutomatic(!state.automatic);
  });

  function setRow(row, delivery) {
    row.delivery = delivery;
    const labels = {
      sending: 'Sending',
      sent: 'Sent',
      received: 'Received',
      undelivered: 'Undelivered',
      unconfirmed: 'Delivery not confirmed',
    };
    row.li.dataset.delivery = delivery;
    row.status.textContent = labels[delivery];
  }

  function undelivered(row) {
    setRow(row, 'undelivered');
    // Files of a rejected send go back to the composer (nothing is lost, nothing resent by itself).
    for (const f of row.files || []) {
      if (!state.files.includes(f)) {
        state.files.push(f);
        if (uploads) uploads.prepend(f.li);
      }
    }
    row.files = [];
    // Keep the draft: back into the composer only when the user has not started another one.
    if (input.value === '') input.value = row.text;
  }

  const hex = (buf) => [...new Uint8Array(buf)].map((x) => x.toString(16).padStart(2, '0')).join('');

  /**
   * A prepared capture from the overlay (`cap`: the provider's answer, `meta`: capture id, scope,
   * region): the bytes go through POST /api/v1/uploads; on 201 they become a removable composer
   * file. A refused upload leaves no file.
   */
  async function prepareCapture(cap, meta) {
    await ready;
    if (!state.sessionId) return { ok: false, reason: 'no session' };
    const bin = atob(cap.data);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const name = `${meta.capture_id}.${cap.extension}`;
    const q = `session_id=${encodeURIComponent(state.sessionId)}&name=${encodeURIComponent(name)}`;
    const r = await fetch(`/api/v1/uploads?${q}`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': cap.mime_type },
      body: bytes,
    });
    const answer = await r.json().catch(() => ({}));
    if (r.status !== 201 || !answer.upload)
      return { ok: false, reason: `upload refused: ${r.status} ${(answer.error && answer.error.code) || ''}`.trim() };
    const u = answer.upload;
    if (u.mime !== cap.mime_type || u.sha256 !== cap.sha256 || u.byte_size !== cap.byte_size) {
      await deleteUpload(u.uuid);
      return { ok: false, reason: 'the stored upload does not match the capture' };
    }
    const file = {
      uuid: u.uuid,
      name: u.name,
      mime_type: u.mime,
      byte_size: u.byte_size,
      sha256: u.sha256,
      scope: meta.scope,
      region: meta.region,
      capture_id: meta.capture_id,
      host_instance_id: meta.host_instance_id,
      snapshot_id: cap.snapshot_id,
      candidate_ids: cap.candidate_ids,
      pixel_width: cap.pixel_width,
      pixel_height: cap.pixel_height,
      redactions_applied: cap.redactions_applied,
    };
    const li = document.createElement('li');
    li.setAttribute('data-upload-uuid', file.uuid);
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.textContent = '×';
    remove.setAttribute('aria-label', `Remove ${file.name}`);
    remove.setAttribute('data-remove-upload', file.uuid);
    remove.addEventListener('click', () => removeFile(file.uuid));
    // A short label (the full name is in the button's accessible name), first in the one-line list.
    li.title = file.name;
    li.append(document.createTextNode(`Image (${cap.extension.toUpperCase()}) `), remove);
    if (uploads) uploads.prepend(li);
    state.files.push(Object.assign({ li }, file));
    return { ok: true, file };
  }

  function deleteUpload(uuid) {
    return fetch(`/api/v1/uploads/${encodeURIComponent(uuid)}?session_id=${encodeURIComponent(state.sessionId)}`, {
      method: 'DELETE',
      headers: auth,
    })
      .then((r) => r.status)
      .catch(() => 0);
  }

  /** Removes a composer file and deletes its upload (cleanup); resolves with the DELETE status. */
  async function removeFile(uuid) {
    const i = state.files.findIndex((f) => f.uuid === uuid);
    if (i < 0) return null;
    const [f] = state.files.splice(i, 1);
    f.li.remove();
    return deleteUpload(uuid);
  }

  /** The one wippy.attention.visual v1 envelope of a composer file (schemas.md §7). */
  async function visualEnvelope(f) {
    const now = Date.now();
    const created = new Date(now).toISOString();
    const expires = new Date(now + 3600 * 1000).toISOString();
    const payload = {
      schema: 'wippy.attention.visual.v1',
      capture_id: f.capture_id,
      snapshot_id: f.snapshot_id,
      host_instance_id: f.host_instance_id,
      created_at: created,
      expires_at: expires,
      candidate_ids: f.candidate_ids,
      region: f.region,
      redactions_applied: f.redactions_applied,
      media: {
        content_type: f.mime_type,
        content_bytes: f.byte_size,
        content_hash: f.sha256,
        pixel_width: f.pixel_width,
        pixel_height: f.pixel_height,
      },
      reference: { kind: 'upload', opaque_id: f.uuid },
      authorization: { scope: 'session', session_id: state.sessionId, audience: 'agent-context', expires_at: expires },
    };
    const content = window.wippyAttention.canonicalJson(payload);
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(content));
    return {
      attachment_id: `visual-${f.capture_id}`.slice(0, 128),
      kind: 'wippy.attention.visual',
      version: 1,
      created_at: created,
      expires_at: expires,
      content_type: 'application/json',
      content_bytes: utf8Length(content),
      content_hash: `sha256:${hex(digest)}`,
      content,
    };
  }

  /** The inline command exactly as it is sent. */
  function buildCommand(requestId, text, attachments, ref, fileUuids) {
    const data = { text };
    if (fileUuids && fileUuids.length) data.file_uuids = fileUuids;
    if (attachments) data.context_attachments = attachments;
    if (ref) data.context_attachments_ref = ref;
    if (state.support.supported) {
      data.runtime_context = {
        attention: {
          agent_actions_enabled: !!(
            window.wippyAttention &&
            window.wippyAttention.configure &&
            window.wippyAttention.configure({}).agent_actions_enabled
          ),
          host_instance_id: window.wippyAttention && window.wippyAttention.host_instance_id,
        },
      };
    }
    return { type: 'session_message', request_id: requestId, data };
  }

  // The wippy.attention version follows the handlers the Session reported (decide(): the highest
  // of 1-4 it lists; v4 carries the selection, v1-v3 say selection-unavailable), never a constant;
  // the snapshot is budgeted for that version. A Session whose descriptor lists no version the Host
  // knows (none, or only unknown ones) gets no guessed one: a send with pointing context is refused
  // with an error naming that, so the user can send it without the context (spec "Message delivery").
  async function contextFor() {
    if (!state.automatic || !state.support.supported) return null;
    if (state.pinned) return state.pinned;
    const version = state.support.attention_version;
    if (!version)
      throw Object.assign(new Error('the Session lists no wippy.attention version this Host writes'), {
        code: 'attention_version_unsupported',
        detail: `handlers list ${JSON.stringify(state.support.attention_versions)}`,
      });
    const snap = await window.wippyAttention.snapshot({ attachment_version: version });
    return [await window.wippyAttention.envelope(snap, { version })];
  }

  async function send(text) {
    const requestId = `req-${randomId()}`;
    const li = document.createElement('li');
    const status = document.createElement('span');
    status.className = 'delivery';
    li.dataset.requestId = requestId;
    li.append(document.createTextNode(`You: ${text.length > 200 ? `${text.slice(0, 200)}…` : text} `), status);
    log.append(li);
    const row = {
      request_id: requestId,
      text,
      li,
      status,
      delivery: null,
      transport: null,
      inline_bytes: null,
      command_bytes: null,
      attachments: null,
      ref: null,
      message_id: null,
      code: null,
      detail_code: null,
      timer: null,
    };
    state.rows.push(row);
    setRow(row, 'sending');
    try {
      await ready;
      if (!socket || socket.readyState !== WebSocket.OPEN)
        throw Object.assign(new Error('not connected'), { code: 'not_connected' });
      // Composer files go with this send (file_uuids), each with its one visual attachment, also
      // when automatic pointing context is off.
      const files = state.files.slice();
      const visuals = await Promise.all(files.map(visualEnvelope));
      const semantic = await contextFor();
      const attachments = semantic || visuals.length ? [...(semantic || []), ...visuals] : null;
      const fileUuids = files.map((f) => f.uuid);
      row.attachments = attachments;
      row.file_uuids = fileUuids;
      row.files = files;
      let frame = JSON.stringify(buildCommand(requestId, text, attachments, null, fileUuids));
      row.inline_bytes = utf8Length(frame);
      row.transport = attachments ? chooseDelivery(row.inline_bytes) : 'none';
      if (row.transport === 'staged') {
        const body = window.wippyAttention.canonicalJson(attachments);
        const q = `session_id=${encodeURIComponent(state.sessionId)}&request_id=${encodeURIComponent(requestId)}`;
        const r = await fetch(`/api/v1/sessions/context?${q}`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body,
        });
        const answer = await r.json();
        if (r.status !== 201)
          throw Object.assign(new Error('staging rejected'), {
            code: answer.error && answer.error.code,
            detail: answer.error && answer.error.validation_code,
          });
        row.ref = answer.context_attachments_ref;
        frame = JSON.stringify(buildCommand(requestId, text, null, row.ref, fileUuids));
      }
      row.command_bytes = utf8Length(frame);
      pending.set(requestId, row);
      // The files now belong to this message: they leave the composer (their uploads stay).
      for (const f of files) {
        f.li.remove();
        state.files = state.files.filter((x) => x !== f);
      }
      socket.send(frame);
      setRow(row, 'sent');
      // No receipt in time: acceptance is unknown. Never resend.
      row.timer = setTimeout(() => {
        if (pending.get(requestId) === row) {
          pending.delete(requestId);
          setRow(row, 'unconfirmed');
        }
      }, receiptTimeoutMs);
    } catch (e) {
      row.code = e.code || 'send_failed';
      row.detail_code = e.detail || null;
      undelivered(row);
    }
  }

  function snapshotState() {
    return {
      status: state.status,
      session_id: state.sessionId,
      socket_id: state.socketId,
      capabilities_status: state.capabilitiesStatus,
      support: state.support,
      attention: state.attention,
      automatic: state.automatic,
      error: state.error,
    };
  }

  showToggle();
  connect();

  return {
    ready,
    get state() {
      return snapshotState();
    },
    /** Submitted rows, oldest first, without DOM nodes. */
    get rows() {
      return state.rows.map(({ li, status, timer, files, ...r }) => r);
    },
    send,
    setAutomatic,
    /** Tests: use this context array for the next sends instead of a fresh snapshot (null: fresh again). */
    pinContext(attachments) {
      state.pinned = attachments;
    },
    /** Byte length of the inline command a send of `text` builds now (the request id has a fixed length). */
    async inlineCommandBytes(text) {
      return utf8Length(JSON.stringify(buildCommand(`req-${randomId()}`, text, await contextFor(), null)));
    },
    chooseDelivery,
    /** Tests: the receipt timeout of the next sends, in ms (a short one proves `unconfirmed`, then a
     *  later send that must be `received` gets a long one, so a slow machine cannot fail it). */
    setReceiptTimeout(ms) {
      if (Number.isFinite(ms) && ms > 0) receiptTimeoutMs = ms;
      return receiptTimeoutMs;
    },
    /** Tests: close the socket (the next sends are Undelivered, never retried). */
    disconnect() {
      if (socket) socket.close();
    },
    /** Rejoin the same session on a new socket; resolves with the new socket id. */
    reconnect() {
      if (!token || !state.sessionId) return Promise.resolve(null);
      const url = `${location.origin.replace(/^http/, 'ws')}/api/v1/ws/join?token=${encodeURIComponent(token)}&session_id=${encodeURIComponent(state.sessionId)}`;
      const before = state.socketId;
      open(url);
      return new Promise((resolve) => {
        const poll = () =>
          state.socketId !== before && state.status === 'open' ? resolve(state.socketId) : setTimeout(poll, 20);
        poll();
      });
    },
    prepareCapture,
    removeFile,
    /** The composer's files (prepared captures), without DOM nodes. */
    get files() {
      return state.files.map(({ li, ...f }) => f);
    },
    /** Sends one UI action result envelope on the Session socket (overlay.js). */
    sendActionResult(result) {
      if (socket && socket.readyState === WebSocket.OPEN)
        socket.send(JSON.stringify({ type: 'session_ui_action_result', session_id: state.sessionId, data: result }));
    },
  };
}
