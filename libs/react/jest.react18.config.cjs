// The same specs with React 18: react and react-dom (and whatever imports them) resolve to the
// test/fixtures/react18 workspace fixture, so react-dom 18 runs React 18.
module.exports = require('./jest.react.cjs')(__dirname, 'react18');
