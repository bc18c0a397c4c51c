module.exports = require('./jest-tmpdir.cjs').teardown;
