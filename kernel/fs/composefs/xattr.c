// SPDX-License-Identifier: GPL-2.0
/*
 * composefs extended attributes.  The keys are stored with their full
 * namespace prefix and in sorted order; every walk checks the chunk as it
 * goes.
 */

#include <linux/xattr.h>
#include <linux/slab.h>
#include "internal.h"

struct cfs_xattr_key {
	u64 value_pos;
	u16 value_len;
	u16 len;
	char name[CFS_MAX_XATTR_KEY];
};

/* Called for each key; 0 continues the walk, anything else ends it. */
typedef int (*cfs_xattr_actor)(struct inode *inode,
			       const struct cfs_xattr_key *key, void *priv);

static int cfs_xattr_step(struct cfs_sb_info *sbi, u64 elem_pos, u64 *data,
			  u64 end, struct cfs_xattr_key *key)
{
	struct cfs_disk_xattr_element el;
	int err;

	err = cfs_read(sbi, elem_pos, &el, sizeof(el));
	if (err)
		return err;
	key->len = le16_to_cpu(el.key_length);
	key->value_len = le16_to_cpu(el.value_length);
	if (!key->len || key->len > CFS_MAX_XATTR_KEY ||
	    (u64)key->len + key->value_len > end - *data)
		return cfs_corrupt(sbi, "xattr at %llu: key of %u bytes or value outside the chunk",
				   elem_pos, key->len);
	err = cfs_read(sbi, *data, key->name, key->len);
	if (err)
		return err;
	if (memchr(key->name, '\0', key->len))
		return cfs_corrupt(sbi, "xattr at %llu: NUL in a key", elem_pos);
	key->value_pos = *data + key->len;
	*data += (u64)key->len + key->value_len;
	return 0;
}

static int cfs_xattr_walk(struct inode *inode, cfs_xattr_actor actor,
			  void *priv)
{
	struct cfs_sb_info *sbi = CFS_SB(inode->i_sb);
	const struct cfs_ref *ref = &CFS_I(inode)->xattrs;
	struct cfs_xattr_key *buf, *cur, *prev;
	u64 data, end = ref->pos + ref->len;
	__le16 n_le;
	u16 n, i;
	int err;

	if (!ref->len)
		return 0;
	if (ref->len < sizeof(n_le))
		return cfs_corrupt(sbi, "xattr chunk at %llu: too short", ref->pos);
	err = cfs_read(sbi, ref->pos, &n_le, sizeof(n_le));
	if (err)
		return err;
	n = le16_to_cpu(n_le);
	data = ref->pos + sizeof(n_le) + (u64)n * CFS_XATTR_ELEM_SIZE;
	if (data > end)
		return cfs_corrupt(sbi, "xattr chunk at %llu: %u elements do not fit",
				   ref->pos, n);

	buf = kmalloc_array(2, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	prev = buf + 1;
	for (i = 0; i < n; i++) {
		err = cfs_xattr_step(sbi, ref->pos + sizeof(n_le) +
				     (u64)i * CFS_XATTR_ELEM_SIZE,
				     &data, end, cur);
		if (!err && i &&
		    cfs_name_cmp(prev->name, prev->len, cur->name, cur->len) >= 0)
			err = cfs_corrupt(sbi, "xattr \"%*pE\": keys not sorted or repeated",
					  cur->len, cur->name);
		if (!err)
			err = actor(inode, cur, priv);
		if (err)
			break;
		swap(cur, prev);
	}
	kfree(buf);
	return err;
}

struct cfs_xattr_get {
	const char *name;
	size_t name_len;
	void *buffer;
	size_t size;
	ssize_t ret;
};

static int cfs_xattr_get_actor(struct inode *inode,
			       const struct cfs_xattr_key *key, void *priv)
{
	struct cfs_xattr_get *g = priv;
	int err;

	if (cfs_name_cmp(key->name, key->len, g->name, g->name_len))
		return 0;
	g->ret = key->value_len;
	if (!g->size)
		return 1;
	if (key->value_len > g->size) {
		g->ret = -ERANGE;
		return 1;
	}
	err = cfs_read(CFS_SB(inode->i_sb), key->value_pos, g->buffer,
		       key->value_len);
	return err ? err : 1;
}

static int cfs_xattr_get(const struct xattr_handler *handler,
			 struct dentry *unused, struct inode *inode,
			 const char *name, void *buffer, size_t size)
{
	struct cfs_xattr_get g = {
		.name = xattr_full_name(handler, name),
		.buffer = buffer,
		.size = size,
		.ret = -ENODATA,
	};
	int err;

	g.name_len = strlen(g.name);
	err = cfs_xattr_walk(inode, cfs_xattr_get_actor, &g);
	return err < 0 ? err : g.ret;
}

static const struct xattr_handler cfs_user_handler = {
	.prefix = XATTR_USER_PREFIX,
	.get = cfs_xattr_get,
};

static const struct xattr_handler cfs_trusted_handler = {
	.prefix = XATTR_TRUSTED_PREFIX,
	.get = cfs_xattr_get,
};

static const struct xattr_handler cfs_security_handler = {
	.prefix = XATTR_SECURITY_PREFIX,
	.get = cfs_xattr_get,
};

const struct xattr_handler *cfs_xattr_handlers[] = {
	&cfs_user_handler,
	&cfs_trusted_handler,
	&cfs_security_handler,
	NULL,
};

struct cfs_xattr_list {
	char *buf;
	size_t size;
	size_t used;
	bool trusted;
};

static bool cfs_has_prefix(const struct cfs_xattr_key *key, const char *prefix)
{
	size_t n = strlen(prefix);

	return key->len > n && !memcmp(key->name, prefix, n);
}

static int cfs_xattr_list_actor(struct inode *inode,
				const struct cfs_xattr_key *key, void *priv)
{
	struct cfs_xattr_list *l = priv;

	if (cfs_has_prefix(key, XATTR_TRUSTED_PREFIX)) {
		if (!l->trusted)
			return 0;
	} else if (!cfs_has_prefix(key, XATTR_USER_PREFIX) &&
		   !cfs_has_prefix(key, XATTR_SECURITY_PREFIX)) {
		return 0;
	}
	if (l->size) {
		if (l->used + key->len + 1 > l->size)
			return -ERANGE;
		memcpy(l->buf + l->used, key->name, key->len);
		l->buf[l->used + key->len] = '\0';
	}
	l->used += key->len + 1;
	return 0;
}

ssize_t cfs_listxattr(struct dentry *dentry, char *buf, size_t size)
{
	struct cfs_xattr_list l = {
		.buf = buf,
		.size = size,
		.trusted = capable(CAP_SYS_ADMIN),
	};
	int err;

	err = cfs_xattr_walk(d_inode(dentry), cfs_xattr_list_actor, &l);
	return err < 0 ? err : l.used;
}
