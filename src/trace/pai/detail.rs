pub fn todo() {}
