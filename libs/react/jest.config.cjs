// @vane/react's specs with React 19 (the root's react and react-dom), in a DOM from happy-dom.
module.exports = require('./jest.react.cjs')(__dirname, 'react19');
