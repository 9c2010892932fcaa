export type WebmailResponse = {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json<T = { action: string; unlock?: string; exec: string }>(): T;
};

/** A cookie-keeping HTTP client that speaks to the webmail like a browser (no redirects followed). */
export class WebmailClient {
  readonly cookies = new Map<string, string>();
  requestToken = '';

  constructor(private readonly baseUrl: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<WebmailResponse> {
    return this.send('GET', path, undefined, headers);
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<WebmailResponse> {
    return this.send('POST', path, new URLSearchParams(form).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  /** A `multipart/form-data` POST (fetch writes the boundary); `token` sends it as the page script's XHR. */
  async upload(path: string, form: FormData, token?: string): Promise<WebmailResponse> {
    return this.send('POST', path, form, token === undefined ? {} : { 'x-roundcube-request': token });
  }

  /** An XHR as the page script sends it: the request token in X-Roundcube-Request. */
  async ajax(path: string, form: Record<string, string>, token = this.requestToken): Promise<WebmailResponse> {
    return this.post(path, form, { 'x-roundcube-request': token });
  }

  /** Shows the login page and returns its form token. */
  async loginToken(): Promise<string> {
    const page = await this.get('/webmail/');
    return tokenIn(page.text);
  }

  /** Logs in through the form and keeps the session's request token. */
  async login(user: string, password: string): Promise<WebmailResponse> {
    const token = await this.loginToken();
    const answer = await this.post('/webmail/?_task=login&_action=login', { _token: token, _user: user, _pass: password });
    if (answer.status === 302) {
      const mailbox = await this.get(answer.headers.get('location')!);
      this.requestToken = /data-request-token="([0-9A-Za-z]{32})"/.exec(mailbox.text)?.[1] ?? '';
    }
    return answer;
  }

  /** GET compose, follow its redirect, and return the new compose ID. */
  async compose(): Promise<string> {
    const answer = await this.get('/webmail/?_task=mail&_action=compose');
    const id = /[?&]_id=([0-9a-f]+)$/.exec(answer.headers.get('location') ?? '')?.[1];
    if (!id) throw new Error(`compose did not redirect to an id: ${answer.status} ${answer.headers.get('location')}`);
    return id;
  }

  sessionId(): string {
    return this.cookies.get('roundcube_sessid') ?? '';
  }

  private async send(method: string, path: string, body: string | FormData | undefined, headers: Record<string, string>): Promise<WebmailResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(this.baseUrl + path, {
      method,
      body,
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      const expired = attributes.some((a) => /expires=/i.test(a) && new Date(a.split('=')[1]!) < new Date());
      if (expired) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) };
  }
}

export function tokenIn(page: string): string {
  const token = /name="_token" value="([^"]*)"/.exec(page)?.[1];
  if (token === undefined) throw new Error('no _token field on the page');
  return token;
}
