// The v1 API, as the signed-in moderator: every request carries the token, which is kept in
// sessionStorage (this tab only, gone when it closes).

const tokenKey = "bouncer.token";

export const token = {
  get: () => sessionStorage.getItem(tokenKey),
  set: (value) => sessionStorage.setItem(tokenKey, value),
  clear: () => sessionStorage.removeItem(tokenKey),
};

/// An answer other than 2xx, with the API's problem fields.
export class APIError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code;
  }
}

// Told when the token stops working (expired, or revoked by a restart with another secret).
let onUnauthorized = () => {};
export function whenUnauthorized(handler) { onUnauthorized = handler; }

/// `path` with its query: entries whose value is empty or null are left out.
export function withQuery(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, value);
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/// Calls the API and answers its JSON (null for 204). `body`: an object sent as JSON, or a
/// string sent as is with `contentType`.
export async function api(method, path, { query, body, contentType } = {}) {
  const headers = { Authorization: `Bearer ${token.get()}` };
  let payload;
  if (body !== undefined) {
    headers["Content-Type"] = contentType || "application/json";
    payload = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(withQuery(path, query), { method, headers, body: payload });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) {
    if (response.status === 401) onUnauthorized();
    throw new APIError(response.status, json);
  }
  return json;
}

export const get = (path, query) => api("GET", path, { query });
export const post = (path, body, query) => api("POST", path, { body, query });
export const patch = (path, body) => api("PATCH", path, { body });
export const put = (path, body) => api("PUT", path, { body });
export const del = (path) => api("DELETE", path);

/// A path segment: ids and names go into paths escaped.
export const segment = (value) => encodeURIComponent(value);

/// Uploads `file` as text/plain, reporting progress (0 to 1) as it goes: fetch cannot tell how
/// much of a body has been sent, XMLHttpRequest can.
export function upload(path, query, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", withQuery(path, query));
    request.setRequestHeader("Authorization", `Bearer ${token.get()}`);
    request.setRequestHeader("Content-Type", "text/plain");
    request.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
    request.onload = () => {
      const json = request.responseText ? JSON.parse(request.responseText) : null;
      if (request.status >= 200 && request.status < 300) resolve(json);
      else reject(new APIError(request.status, json));
    };
    request.onerror = () => reject(new APIError(0, { detail: "network error" }));
    request.send(file);
  });
}

/// Follows the event stream of `types`, calling `onEvent(type, data)` with each event's `data`; `onState(live)` as the
/// connection comes and goes (EventSource reconnects by itself, resuming after the last id).
/// EventSource cannot send headers, so the token goes in the query, which the server never logs.
export function followEvents(types, onEvent, onState) {
  const source = new EventSource(withQuery("/v1/events/stream", { types: types.join(","), access_token: token.get() }));
  source.onopen = () => onState(true);
  source.onerror = () => onState(false);
  for (const type of types) {
    // Each `data:` line is the whole event; the handlers want what it is about.
    source.addEventListener(type, (event) => onEvent(type, JSON.parse(event.data).data));
  }
  return source;
}
