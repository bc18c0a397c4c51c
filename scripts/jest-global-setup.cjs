module.exports = require('./jest-tmpdir.cjs').setup;
