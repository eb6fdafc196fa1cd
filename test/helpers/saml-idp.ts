/**
 * A real SAML 2.0 identity provider for the tests, built on samlify: it publishes its metadata, parses the service
 * provider's AuthnRequests (HTTP-Redirect binding, schema-validated by xmllint) and answers with a login response that
 * samlify builds and signs (assertion and response, RSA-SHA256), delivered as an HTTP-POST form the test (or a browser)
 * submits to the service provider's assertion consumer service. `tamperNext` makes one response wrong in one way, the
 * way a misconfigured or malicious IdP would, for the service provider to refuse.
 */
import validator from '@authenio/samlify-node-xmllint';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import samlify from 'samlify';
import type { IdentityProviderInstance, ServiceProviderInstance } from 'samlify';

export interface SamlPerson {
  nameId: string;
  email?: string;
  name?: string;
  groups?: string[];
  emailVerified?: boolean;
}

export type SamlTampering =
  | { unsigned: true } // neither the response nor the assertion carries a signature
  | { foreignKey: true } // signed with a key that is not the one in the metadata
  | { audience: string } // AudienceRestriction names another SP
  | { expired: true } // NotOnOrAfter (conditions and subject confirmation) already past by 10 minutes
  | { inResponseTo: string }; // InResponseTo set to this value instead of the request's ID

export interface SamlIdp {
  entityId: string;
  ssoUrl: string;
  metadataUrl: string;
  metadata: string;
  /** Trust a service provider from its metadata XML (EntityDescriptor with SPSSODescriptor and an AssertionConsumerService HTTP-POST). Call before sign-ins. */
  trust(spMetadataXml: string): void;
  /** The person the next sign-in names (kept until changed). */
  signInAs(person: SamlPerson): void;
  /** What the next response does wrong; one time. */
  tamperNext(how: SamlTampering): void;
  /** AuthnRequests the IdP parsed (their ID attributes), in order. */
  requests: string[];
  close(): Promise<void>;
}

const { Constants, SamlLib } = samlify;
const PERSISTENT = Constants.namespace.format.persistent;
const RSA_SHA256 = Constants.algorithms.signature.RSA_SHA256;
const BASIC = 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic';
const MINUTE = 60_000;

// samlify's default login response template leaves {AuthnStatement} and {AttributeStatement} to the caller. These
// fragments are spliced in with placeholders of their own, and samlify's replaceTagsByValue fills (and XML-escapes)
// every placeholder. xs and xsi are declared on the template's <saml:Assertion>.
const AUTHN_STATEMENT =
  '<saml:AuthnStatement AuthnInstant="{IssueInstant}" SessionIndex="{SessionIndex}"><saml:AuthnContext>' +
  `<saml:AuthnContextClassRef>${Constants.namespace.authnContextClassRef.passwordProtectedTransport}</saml:AuthnContextClassRef>` +
  '</saml:AuthnContext></saml:AuthnStatement>';
const ATTRIBUTE = `<saml:Attribute Name="{Name}" NameFormat="${BASIC}">{Values}</saml:Attribute>`;
const ATTRIBUTE_VALUE = '<saml:AttributeValue xsi:type="xs:string">{Value}</saml:AttributeValue>';

// Where samlify itself puts an assertion's signature when the SP's metadata asks for signed assertions.
const ASSERTION_XPATH = "/*[local-name(.)='Response']/*[local-name(.)='Assertion']";
const ASSERTION_SIGNATURE = {
  prefix: 'ds',
  location: { reference: `${ASSERTION_XPATH}/*[local-name(.)='Issuer']`, action: 'after' as const },
};

const exec = promisify(execFile);

async function selfSigned(dir: string, name: string): Promise<{ key: string; cert: string }> {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.crt`);
  await exec('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '2',
    '-subj',
    '/CN=test-idp',
  ]);
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8') };
}

/** Runs `build` with console.warn silenced: samlify warns about every IdP built without a SingleLogoutService (this one signs in only). */
function quietly<T>(build: () => T): T {
  const warn = console.warn;
  console.warn = () => {};
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}

/**
 * samlify's xmllint schema validator (emscripten) runs synchronously inside the promise it returns, and every run
 * prints a blank line (console.log), adds a process 'uncaughtException' listener, and adds a stdout 'drain' listener
 * that calls process.exit: left there, a test writing enough to stdout would end the Jest worker. The wrapper runs it
 * quietly and takes those listeners off again. Invalid XML is still reported (console.error) and rejected.
 */
const schemaValidator = {
  validate(xml: string): Promise<unknown> {
    const exits = process.listeners('uncaughtException');
    const drains = process.stdout.listeners('drain');
    const log = console.log;
    console.log = () => {};
    try {
      return validator.validate(xml);
    } finally {
      console.log = log;
      for (const added of process.listeners('uncaughtException')) if (!exits.includes(added)) process.off('uncaughtException', added);
      for (const added of process.stdout.listeners('drain')) if (!drains.includes(added)) process.stdout.off('drain', added as () => void);
    }
  },
};

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The attributes set on `person`, in a fixed order, as (SAML attribute name, values). */
function attributesOf(person: SamlPerson): Array<[string, string[]]> {
  const attributes: Array<[string, string[]]> = [];
  if (person.email !== undefined) attributes.push(['email', [person.email]]);
  if (person.name !== undefined) attributes.push(['name', [person.name]]);
  if (person.groups !== undefined && person.groups.length > 0) attributes.push(['groups', person.groups]);
  if (person.emailVerified !== undefined) attributes.push(['email_verified', [String(person.emailVerified)]]);
  return attributes;
}

export async function startSamlIdp(): Promise<SamlIdp> {
  samlify.setSchemaValidator(schemaValidator);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'saml-idp-'));
  // Replaced once the IdP is set up (the server listens only after its port is known, when nothing is set up yet).
  let handle = async (_req: IncomingMessage, res: ServerResponse): Promise<void> => send(res, 503, 'text/plain', 'starting');
  const server = createServer((req, res) => void handle(req, res));
  try {
    const [own, foreign] = await Promise.all([selfSigned(dir, 'idp'), selfSigned(dir, 'foreign')]);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const entityId = `${base}/metadata`;
    const ssoUrl = `${base}/sso`;

    const metadata = quietly(() =>
      samlify
        .IdPMetadata({
          entityID: entityId,
          signingCert: own.cert,
          wantAuthnRequestsSigned: false,
          nameIDFormat: [PERSISTENT],
          singleSignOnService: [{ Binding: Constants.namespace.binding.redirect, Location: ssoUrl }],
        })
        .getMetadata(),
    );
    // Both sign with the metadata's certificate in KeyInfo; the foreign one with a key that does not belong to it.
    const idp = samlify.IdentityProvider({ metadata, privateKey: own.key, requestSignatureAlgorithm: RSA_SHA256 });
    const impostor = samlify.IdentityProvider({ metadata, privateKey: foreign.key, requestSignatureAlgorithm: RSA_SHA256 });

    const trusted = new Map<string, ServiceProviderInstance>();
    const requests: string[] = [];
    let person: SamlPerson | undefined;
    let tampering: SamlTampering | undefined;

    async function respond(res: ServerResponse, url: URL): Promise<void> {
      const samlRequest = url.searchParams.get('SAMLRequest');
      const relayState = url.searchParams.get('RelayState') ?? undefined;
      const anySp = trusted.values().next().value;
      if (!samlRequest) return send(res, 400, 'text/plain', 'SAMLRequest is missing');
      if (!anySp) return send(res, 400, 'text/plain', 'no service provider is trusted');
      let parsed: Awaited<ReturnType<IdentityProviderInstance['parseLoginRequest']>>;
      try {
        // The SP entity only matters for signed requests (this IdP wants none): the issuer picks the SP below.
        parsed = await idp.parseLoginRequest(anySp, 'redirect', { query: { SAMLRequest: samlRequest, RelayState: relayState } });
      } catch (error) {
        return send(res, 400, 'text/plain', `AuthnRequest refused: ${String(error)}`);
      }
      const requestId = String(parsed.extract.request?.id ?? '');
      if (!requestId) return send(res, 400, 'text/plain', 'AuthnRequest has no ID');
      requests.push(requestId);
      const sp = trusted.get(String(parsed.extract.issuer ?? ''));
      if (!sp) return send(res, 400, 'text/plain', `service provider ${String(parsed.extract.issuer)} is not trusted`);
      if (!person) return send(res, 500, 'text/plain', 'signInAs() was not called');

      const how = tampering;
      tampering = undefined;
      const signer = how && 'foreignKey' in how ? impostor : idp;
      const acs = sp.entityMeta.getAssertionConsumerService('post') as string;
      const spWantsSignedAssertions = sp.entityMeta.isWantAssertionsSigned();
      const now = Date.now();
      const at = (minutes: number) => new Date(now + minutes * MINUTE).toISOString();
      const expired = Boolean(how && 'expired' in how);
      const attributes = attributesOf(person);
      const nameId = person.nameId;
      let unsignedXml = '';

      const customTagReplacement = (template: string) => {
        const id = signer.entitySetting.generateID!();
        const attributeStatement =
          attributes.length === 0
            ? ''
            : '<saml:AttributeStatement>' +
              attributes
                .map(([name, values], a) =>
                  SamlLib.replaceTagsByValue(ATTRIBUTE, { Name: name }).replace(
                    '{Values}',
                    values.map((_, v) => ATTRIBUTE_VALUE.replace('{Value}', `{Attr${a}Value${v}}`)).join(''),
                  ),
                )
                .join('') +
              '</saml:AttributeStatement>';
        const tags: Record<string, string> = {
          ID: id,
          AssertionID: signer.entitySetting.generateID!(),
          SessionIndex: signer.entitySetting.generateID!(),
          Destination: acs,
          SubjectRecipient: acs,
          Issuer: entityId,
          IssueInstant: at(0),
          StatusCode: Constants.StatusCode.Success,
          InResponseTo: how && 'inResponseTo' in how ? how.inResponseTo : requestId,
          Audience: how && 'audience' in how ? how.audience : sp.entityMeta.getEntityID(),
          ConditionsNotBefore: expired ? at(-15) : at(-5),
          ConditionsNotOnOrAfter: expired ? at(-10) : at(5),
          SubjectConfirmationDataNotOnOrAfter: expired ? at(-10) : at(5),
          NameIDFormat: PERSISTENT,
          // Values the test chose go last: replaceTagsByValue works tag by tag, and a value is never scanned for the
          // tags before it.
          NameID: nameId,
        };
        attributes.forEach(([, values], a) => values.forEach((value, v) => (tags[`Attr${a}Value${v}`] = value)));
        const xml = SamlLib.replaceTagsByValue(
          template.replace('{AuthnStatement}', AUTHN_STATEMENT).replace('{AttributeStatement}', attributeStatement),
          tags,
        );
        unsignedXml = xml;
        // samlify signs the assertion itself only when the SP's metadata says WantAssertionsSigned="true"; sign it the
        // same way otherwise. The response is signed by samlify (the SP entity is built with wantMessageSigned).
        const context = spWantsSignedAssertions
          ? xml
          : SamlLib.constructSAMLSignature({
              rawSamlMessage: xml,
              referenceTagXPath: ASSERTION_XPATH,
              privateKey: signer.entitySetting.privateKey as string,
              signatureAlgorithm: RSA_SHA256,
              signingCert: signer.entityMeta.getX509Certificate('signing') as string,
              signatureConfig: ASSERTION_SIGNATURE,
              isBase64Output: false,
            });
        return { id, context };
      };

      let samlResponse: string;
      try {
        const built = await signer.createLoginResponse(sp, { extract: parsed.extract }, 'post', {}, { customTagReplacement, relayState });
        samlResponse = how && 'unsigned' in how ? Buffer.from(unsignedXml, 'utf8').toString('base64') : built.context;
      } catch (error) {
        return send(res, 500, 'text/plain', `login response failed: ${String(error)}`);
      }
      const relayInput = relayState === undefined ? '' : `<input type="hidden" name="RelayState" value="${escapeHtml(relayState)}">`;
      send(
        res,
        200,
        'text/html; charset=utf-8',
        '<!doctype html><html><head><meta charset="utf-8"><title>Test SAML IdP</title></head><body>' +
          `<form method="post" action="${escapeHtml(acs)}">` +
          `<input type="hidden" name="SAMLResponse" value="${escapeHtml(samlResponse)}">${relayInput}` +
          '<button type="submit">Continue</button></form></body></html>',
      );
    }

    handle = async (req, res) => {
      const url = new URL(req.url ?? '/', base);
      try {
        if (req.method === 'GET' && url.pathname === '/metadata') return send(res, 200, 'application/samlmetadata+xml', metadata);
        if (req.method === 'GET' && url.pathname === '/sso') return await respond(res, url);
        send(res, 404, 'text/plain', 'not found');
      } catch (error) {
        if (!res.headersSent) send(res, 500, 'text/plain', String(error));
      }
    };

    return {
      entityId,
      ssoUrl,
      metadataUrl: entityId,
      metadata,
      requests,
      trust(spMetadataXml) {
        const sp = samlify.ServiceProvider({ metadata: spMetadataXml, wantMessageSigned: true });
        if (!sp.entityMeta.getAssertionConsumerService('post'))
          throw new Error('the SP metadata has no HTTP-POST AssertionConsumerService');
        trusted.set(sp.entityMeta.getEntityID(), sp);
      },
      signInAs(next) {
        person = { ...next, groups: next.groups && [...next.groups] };
      },
      tamperNext(how) {
        tampering = how;
      },
      close: () => shutDown(server, dir),
    };
  } catch (error) {
    await shutDown(server, dir);
    throw error;
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

async function shutDown(server: ReturnType<typeof createServer>, dir: string): Promise<void> {
  if (server.listening) {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
  }
  await rm(dir, { recursive: true, force: true });
}
