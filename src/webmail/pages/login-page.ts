import { html, type SafeHtml } from './html.ts';
import { layout, type Notice } from './layout.ts';

/** Roundcube's login form: `_user`, `_pass` and the session's `_token`, posted to the login action. */
/** `user` refills the name after a failed login, as Roundcube does. */
export function loginPage(requestToken: string, mailDomain: string, notice?: Notice, user = ''): SafeHtml {
  return layout({
    title: 'Welcome',
    bodyClass: 'login',
    notice,
    env: { task: 'login' },
    content: html`<main class="login-box">
<h1>Webmail</h1>
<form name="login-form" method="post" action="/webmail/?_task=login&amp;_action=login">
<input type="hidden" name="_token" value="${requestToken}">
<label for="rcmloginuser">Username</label>
<input id="rcmloginuser" name="_user" type="text" value="${user}" required autocapitalize="none" autocomplete="off" maxlength="1024" placeholder="name or name@${mailDomain}">
<label for="rcmloginpwd">Password</label>
<input id="rcmloginpwd" name="_pass" type="password" required autocomplete="off" maxlength="1024">
<button type="submit" id="rcmloginsubmit">Login</button>
</form>
</main>`,
  });
}
