/**
 * A SAML identity provider's metadata (docs/federation.md): what a saml source reads from `idp_metadata_file` or
 * `idp_metadata_url` — the IdP's entity ID (the Issuer its assertions must name), its single sign-on URL for the
 * HTTP-Redirect binding, and the X.509 certificates it signs with. Parsed with xmldom and xpath (the parser node-saml
 * itself uses), by local names, so any namespace prefix reads the same.
 */
import { readFileSync } from 'node:fs';
import { DOMParser } from '@xmldom/xmldom';
import xpath from 'xpath';
import { isSecureOrLoopbackUrl } from './loopback.js';

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** Base64 DER certificates (no PEM armour), as node-saml's idpCert takes them. */
  certs: string[];
}

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

const select = (expression: string, node: Node) => xpath.select(expression, node) as Node[];
const attribute = (node: Node, name: string) => (node as Element).getAttribute(name) ?? '';

/** Throws an Error whose message says, in words, what the document lacks. */
export function parseIdpMetadata(xml: string): IdpMetadata {
  const problems: string[] = [];
  const doc = new DOMParser({
    errorHandler: (level: string, message: unknown) => {
      if (level !== 'warning') problems.push(String(message).split('\n')[0]!);
    },
  }).parseFromString(xml, 'text/xml');
  if (problems.length || !doc?.documentElement) throw new Error(`not XML (${problems[0] ?? 'empty'})`);
  const descriptor =
    doc.documentElement.localName === 'EntityDescriptor'
      ? doc.documentElement
      : select("//*[local-name()='EntityDescriptor'][*[local-name()='IDPSSODescriptor']]", doc)[0];
  const idp = descriptor && select("*[local-name()='IDPSSODescriptor']", descriptor)[0];
  if (!descriptor || !idp) throw new Error('no EntityDescriptor with an IDPSSODescriptor (is it the identity provider’s metadata?)');
  const entityId = attribute(descriptor, 'entityID');
  if (!entityId) throw new Error('the EntityDescriptor has no entityID');
  const sso = select("*[local-name()='SingleSignOnService']", idp).find((node) => attribute(node, 'Binding') === REDIRECT);
  const ssoUrl = sso ? attribute(sso, 'Location') : '';
  if (!/^https?:\/\//.test(ssoUrl)) throw new Error('no SingleSignOnService for the HTTP-Redirect binding');
  const certs = select("*[local-name()='KeyDescriptor']", idp)
    .filter((key) => ['', 'signing'].includes(attribute(key, 'use')))
    .flatMap((key) => select(".//*[local-name()='X509Certificate']", key))
    .map((node) => (node.textContent ?? '').replace(/\s+/g, ''))
    .filter(Boolean);
  if (!certs.length) throw new Error('no signing certificate (KeyDescriptor with an X509Certificate)');
  return { entityId, ssoUrl, certs: [...new Set(certs)] };
}

/**
 * A saml source's metadata, from its file or fetched from its URL (https, or http on loopback; no redirects): the one
 * reading both the service and `idp doctor` make. Throws an Error that says what went wrong, in words.
 */
export async function readIdpMetadata(
  source: { idp_metadata_file?: string; idp_metadata_url?: string },
  timeoutMs: number,
): Promise<IdpMetadata> {
  if (source.idp_metadata_file) return parseIdpMetadata(readFileSync(source.idp_metadata_file, 'utf8'));
  const url = source.idp_metadata_url!;
  if (!isSecureOrLoopbackUrl(url, true)) throw new Error('the metadata URL must be https');
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`the metadata URL answered ${response.status}`);
  return parseIdpMetadata(await response.text());
}
