// Local ESLint plugin (docs/dashboard.md "Dates and times"): every date or time a
// page writes comes from components/ui/time-format.ts, so the dashboard has one
// style. This rule reports raw formatting elsewhere in components/ and app/:
// Date's toLocaleString / toLocaleDateString / toLocaleTimeString, and
// Intl.DateTimeFormat (called or constructed). Modelled on rallly's rule.
const METHODS = new Set(['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']);

function isIntlDateTimeFormat(node) {
  return (
    node.type === 'MemberExpression' &&
    !node.computed &&
    node.object.type === 'Identifier' &&
    node.object.name === 'Intl' &&
    node.property.type === 'Identifier' &&
    node.property.name === 'DateTimeFormat'
  );
}

const noRawDatetimeFormatting = {
  meta: {
    type: 'problem',
    docs: { description: 'Format dates and times with components/ui/time-format.ts, not toLocale*String or Intl.DateTimeFormat' },
    messages: {
      method: 'Use a function of components/ui/time-format.ts instead of {{name}}() (one date format across the pages).',
      intl: 'Use a function of components/ui/time-format.ts instead of Intl.DateTimeFormat (one date format across the pages).',
    },
    schema: [],
  },
  create(context) {
    return {
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier' && METHODS.has(callee.property.name)) {
          context.report({ node, messageId: 'method', data: { name: callee.property.name } });
        }
        if (isIntlDateTimeFormat(callee)) context.report({ node, messageId: 'intl' });
      },
      NewExpression(node) {
        if (isIntlDateTimeFormat(node.callee)) context.report({ node, messageId: 'intl' });
      },
    };
  },
};

const plugin = { meta: { name: 'local' }, rules: { 'no-raw-datetime-formatting': noRawDatetimeFormatting } };
export default plugin;
