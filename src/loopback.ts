/** The one loopback rule: localhost, 127.0.0.0/8 and [::1] never leave the machine, so plain http is tolerable there. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** https anywhere; http only on loopback, and only when `allowLoopbackHttp`. */
export function isSecureOrLoopbackUrl(value: string, allowLoopbackHttp: boolean): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' || (allowLoopbackHttp && url.protocol === 'http:' && isLoopbackHost(url.hostname));
}
