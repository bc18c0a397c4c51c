// @vane/nestjs: the package shell. Its module arrives with its own issue; nothing is exported yet.
export {};
