//! What a reader records of the strict objects it reads ([`Reader::record`](super::Reader::record)): their known
//! members and where each value lies, so that a canonical pass visits every byte once.

/// The members of strict objects recorded while a value was read
/// ([`Reader::record`](super::Reader::record)), so
/// that a canonical pass ([`crate::doc::jcs::tree`]) visits every byte once.
#[derive(Debug, Default)]
pub struct Tree {
    objects: Vec<Vec<(&'static str, Node)>>,
}

/// A member's value: a span of the text (no recorded object inside it), or a recorded object.
#[derive(Clone, Copy, Debug)]
pub enum Node {
    Leaf(usize, usize),
    Object(usize),
}

impl Tree {
    /// A new, empty object; returns its node.
    pub fn object(&mut self) -> Node {
        self.objects.push(Vec::with_capacity(16));
        Node::Object(self.objects.len() - 1)
    }

    /// Add a member to a recorded object. Keys are the schema's own (plain ASCII, listed once
    /// per object: a repeated key is refused by the reader, so it is not recorded twice).
    pub fn member(&mut self, object: Node, key: &'static str, node: Node) {
        let Node::Object(i) = object else {
            unreachable!("members belong to objects")
        };
        self.objects[i].push((key, node));
    }

    /// The members of object `i`, in document order.
    pub fn members(&self, i: usize) -> &[(&'static str, Node)] {
        &self.objects[i]
    }
}

/// What [`Reader::record`](super::Reader::record) keeps: the [`Tree`] of the strict objects read so far, and where
/// each one started (so that a member whose value is one of them points at it).
#[derive(Default)]
pub struct Recorder {
    pub tree: Tree,
    starts: Vec<(usize, Node)>,
}

impl Recorder {
    /// A strict object starts at byte `at`.
    pub fn begin(&mut self, at: usize) -> Node {
        let node = self.tree.object();
        self.starts.push((at, node));
        node
    }

    /// A member of `object` whose value spans `start..end`.
    pub fn member(&mut self, object: Node, key: &'static str, start: usize, end: usize) {
        let node = self
            .starts
            .iter()
            .find(|(at, _)| *at == start)
            .map_or(Node::Leaf(start, end), |(_, n)| *n);
        self.tree.member(object, key, node);
    }

    /// The node of the object that started at byte `at`.
    pub fn at(&self, at: usize) -> Option<Node> {
        self.starts.iter().find(|(a, _)| *a == at).map(|(_, n)| *n)
    }
}
