/** The SCIM filter and PATCH path grammar (RFC 7644 §3.4.2.2, §3.5.2), as syntax trees. */
import { parseFilter, parsePatchPath } from '../../src/scim/filter.js';
import { ScimError } from '../../src/errors.js';

const refusal = (parse: () => unknown) => {
  try {
    parse();
  } catch (error) {
    if (error instanceof ScimError) return { status: error.status, scimType: error.scimType, detail: error.detail };
    throw error;
  }
  throw new Error('parsed');
};

describe('SCIM filter grammar', () => {
  test('comparisons, presence and literals', () => {
    expect(parseFilter('userName eq "bjensen"')).toEqual({ op: 'eq', path: { attribute: 'userName' }, value: 'bjensen' });
    expect(parseFilter('title pr')).toEqual({ op: 'pr', path: { attribute: 'title' } });
    expect(parseFilter('active EQ True')).toEqual({ op: 'eq', path: { attribute: 'active' }, value: true });
    expect(parseFilter('x ne null')).toEqual({ op: 'ne', path: { attribute: 'x' }, value: null });
    expect(parseFilter('x gt -1.5e2')).toEqual({ op: 'gt', path: { attribute: 'x' }, value: -150 });
    expect(parseFilter('name.familyName co "O\'Malley \\"quoted\\""')).toEqual({
      op: 'co',
      path: { attribute: 'name', subAttribute: 'familyName' },
      value: 'O\'Malley "quoted"',
    });
    expect(parseFilter('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value eq "x"')).toEqual({
      op: 'eq',
      path: { schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', attribute: 'manager', subAttribute: 'value' },
      value: 'x',
    });
  });

  test('and binds tighter than or; not and parentheses; value paths', () => {
    const a = { op: 'pr', path: { attribute: 'a' } };
    const b = { op: 'pr', path: { attribute: 'b' } };
    const c = { op: 'pr', path: { attribute: 'c' } };
    expect(parseFilter('a pr or b pr and c pr')).toEqual({ op: 'or', left: a, right: { op: 'and', left: b, right: c } });
    expect(parseFilter('(a pr or b pr) and c pr')).toEqual({ op: 'and', left: { op: 'or', left: a, right: b }, right: c });
    expect(parseFilter('not(a pr) AND NOT (b pr)')).toEqual({ op: 'and', left: { op: 'not', filter: a }, right: { op: 'not', filter: b } });
    expect(parseFilter('emails[type eq "work" and value co "@example.com"] or userType eq "Employee"')).toEqual({
      op: 'or',
      left: {
        op: 'valuePath',
        path: { attribute: 'emails' },
        filter: {
          op: 'and',
          left: { op: 'eq', path: { attribute: 'type' }, value: 'work' },
          right: { op: 'co', path: { attribute: 'value' }, value: '@example.com' },
        },
      },
      right: { op: 'eq', path: { attribute: 'userType' }, value: 'Employee' },
    });
  });

  test.each([
    ['', 'empty'],
    ['userName', 'an operator'],
    ['userName eq', 'a value'],
    ['userName eq bjensen', 'a value'],
    ['userName eq "a" or', 'an attribute'],
    ['(userName pr', '")"'],
    ['userName pr)', 'continues'],
    ['emails[type eq "work"', '"]"'],
    ['"a" eq "b"', 'an attribute'],
    ['userName eq "a\\q"', 'JSON string'],
    ['a pr and '.repeat(1000) + 'a pr', 'longer than'],
  ])('refused: %j', (filter, words) => {
    const refused = refusal(() => parseFilter(filter));
    expect(refused).toMatchObject({ status: 400, scimType: 'invalidFilter' });
    expect(refused.detail).toContain(words);
  });

  test('deep nesting is refused, not a stack overflow', () => {
    const deep = `${'('.repeat(40)}a pr${')'.repeat(40)}`;
    expect(refusal(() => parseFilter(deep)).detail).toContain('nesting');
  });
});

describe('PATCH paths', () => {
  test('attribute, sub-attribute, qualified, filtered and filtered with a sub-attribute', () => {
    expect(parsePatchPath('title')).toEqual({ path: { attribute: 'title' } });
    expect(parsePatchPath('name.givenName')).toEqual({ path: { attribute: 'name', subAttribute: 'givenName' } });
    expect(parsePatchPath('members[value eq "2819c223"]')).toEqual({
      path: { attribute: 'members' },
      filter: { op: 'eq', path: { attribute: 'value' }, value: '2819c223' },
    });
    expect(parsePatchPath('emails[type eq "work"].value')).toEqual({
      path: { attribute: 'emails', subAttribute: 'value' },
      filter: { op: 'eq', path: { attribute: 'type' }, value: 'work' },
    });
    expect(parsePatchPath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department')).toEqual({
      path: { schema: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', attribute: 'department' },
    });
  });

  test.each([
    '',
    'emails[type eq "work"',
    'emails[type eq "work"] extra',
    'name.givenName[type eq "x"]',
    'emails[type eq "work"].value.x',
    '9lives',
  ])('refused: %j → invalidPath', (path) => {
    expect(refusal(() => parsePatchPath(path))).toMatchObject({ status: 400, scimType: 'invalidPath' });
  });
});
