/** The English texts the webmail shows, worded as Roundcube's en_US labels where it has one. */
export const TEXTS = {
  loginFailed: 'Login failed.',
  invalidRequest: 'Invalid request! No data was saved.',
  /** Roundcube's errormarking. */
  markFailed: 'Could not mark message.',
  accountLocked: 'Too many failed login attempts. Try again later.',
  sessionError: 'Your session is invalid or expired.',
  loggedOut: 'You have successfully terminated the session. Goodbye!',
  internalError: 'An internal error occurred. Please try again.',
  messageSent: 'Message sent successfully.',
  messageDeleted: 'Message moved to Trash.',
  /** Roundcube's messagemoved. */
  messagesMoved: 'Message(s) moved successfully.',
  storageFailed: 'Connection to storage server failed.',
  requestCheckFailed: 'Request Check Failed',
  csrfExplanation: [
    'For your protection, access to this resource is secured against CSRF.',
    "If you see this, you probably didn't log out before leaving the web application.",
    '',
    'Human interaction is now required to continue.',
  ],
  contactAdmin: 'Please contact your server-administrator.',
  backToLogin: 'Back to the login page',
  composeSessionError: 'Compose Session Error',
  composeSessionNotFound: 'Requested compose session not found.',
  composeAgain: 'Click here to compose a new message',
  invalidRequestTitle: 'Invalid Request',
  /** Roundcube's attachment_upload.php answer to an unknown compose ID. */
  invalidSessionVar: 'Invalid session var!',
  /** Roundcube's filesizeerror, fileuploaderror and maxuploadsize; the totals are ours. */
  fileSizeError: (size: string) => `The uploaded file exceeds the maximum size of ${size}.`,
  totalSizeError: (size: string) => `The attachments exceed the maximum size of ${size} in all.`,
  tooManyFiles: (files: number) => `At most ${files} files can be attached to one message.`,
  fileUploadError: 'File upload failed.',
  maxUploadSize: (size: string) => `Maximum allowed file size is ${size}.`,
  /** Roundcube's messagesaved. */
  draftSaved: 'Message saved to Drafts.',
  draftNotSaved: 'Could not save the message to Drafts.',
} as const;
