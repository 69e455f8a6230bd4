// What a redemption code is, checked on the functions that make and read it: 20 characters of
// the 32-character alphabet without look-alikes, grouped by four, every character drawn
// uniformly (5 bits each: 100 bits); what a customer types is read without regard to case,
// dashes or spaces, and anything that cannot be a code is refused before any lookup.
import test from 'ava';
import { codeAlphabet, codeHint, codeLength, groupCode, hashCode, newCode, normalizeCode } from '../../src/codes/code-format.js';

test('codes are 20 characters of 32 without 0, O, 1 and I, grouped by four: 100 random bits', (t) => {
  t.is(codeAlphabet.length, 32);
  t.is(new Set(codeAlphabet).size, 32);
  for (const lookAlike of '01IO') t.false(codeAlphabet.includes(lookAlike), lookAlike);
  t.is(codeLength * Math.log2(codeAlphabet.length), 100);
  const codes = Array.from({ length: 4000 }, () => newCode());
  for (const code of codes) t.regex(code, /^[A-HJ-NP-Z2-9]{4}(-[A-HJ-NP-Z2-9]{4}){4}$/);
  t.is(new Set(codes).size, codes.length, 'no two alike');
  // 80,000 characters: each of the 32 expected 2,500 times at every position on average; a
  // character the bit extraction favoured or never made would be far outside ±20%.
  const counts = new Map<string, number>();
  for (const code of codes) for (const character of code.replaceAll('-', '')) counts.set(character, (counts.get(character) ?? 0) + 1);
  t.is(counts.size, 32);
  for (const [character, count] of counts) t.true(count > 2000 && count < 3000, `${character}: ${count}`);
  // The last position too (the extraction's tail): every character appears there.
  t.is(new Set(codes.map((code) => code.at(-1))).size, 32);
});

test('a typed code is read without regard to case, dashes and spaces; what cannot be a code is refused', (t) => {
  const code = 'ABCD-EFGH-JKLM-NPQR-STUV';
  const normalized = 'ABCDEFGHJKLMNPQRSTUV';
  for (const typed of [code, normalized, code.toLowerCase(), ' abcd efgh jklm npqr stuv ', 'AbCd-EfGh--JkLm-NpQr-StUv', 'ABCD\tEFGH\nJKLM-NPQR-STUV']) t.is(normalizeCode(typed), normalized, JSON.stringify(typed));
  for (const typed of ['', 'ABCD-EFGH-JKLM-NPQR', `${code}-W`, 'OBCD-EFGH-JKLM-NPQR-STUV', 'ABC1-EFGH-JKLM-NPQR-STUV', 'ABCD_EFGH_JKLM_NPQR_STUV', 'ÄBCD-EFGH-JKLM-NPQR-STUV', 42, null, undefined, ['ABCD'], 'A'.repeat(101)]) {
    t.is(normalizeCode(typed), undefined, JSON.stringify(typed));
  }
  t.is(groupCode(normalized), code);
  t.is(codeHint(normalized), 'STUV');
  // The stored form: sha256 hex of the normalized code (changing it would orphan every code made).
  t.is(hashCode(normalized), 'da4e7ea9782c8cb109255854f713c0f231925c812491d35bc39200cfa5c39d0d');
  t.not(hashCode(normalized), hashCode('ABCDEFGHJKLMNPQRSTUW'));
});
